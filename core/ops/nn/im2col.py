"""im2col / col2im on NumPy (PyTorch's unfold layout) and F.unfold / F.fold (Im2ColBackward0 <-> Col2ImBackward0)."""
from __future__ import annotations

import itertools

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ... import dtypes as _dt
from ...autograd.function import Op
from ..registry import register
from ._util import _alloc, _pair, _shape


def _out_len(size, lo, hi, k, d, s):
    return (size + lo + hi - d * (k - 1) - 1) // s + 1


def _padded(x, pads, fill=0):
    """x [N, C, H, W] padded by (top, bottom, left, right) with `fill` (a fresh array, or x itself)."""
    pt, pb, pl, pr = pads
    if not (pt or pb or pl or pr):
        return x
    n, c, h, w = x.shape
    if fill == 0:
        out = np.zeros((n, c, h + pt + pb, w + pl + pr), dtype=x.dtype)
    else:
        out = np.full((n, c, h + pt + pb, w + pl + pr), fill, dtype=x.dtype)
    out[:, :, pt:pt + h, pl:pl + w] = x
    return out


def _windows(xp, k, d, s, oh, ow):
    """Read-only strided view [N, C, kh, kw, Ho, Wo] of the sliding blocks of padded xp."""
    n, c = xp.shape[:2]
    sn, sc, sh, sw = xp.strides
    return as_strided(xp, (n, c, k[0], k[1], oh, ow),
                      (sn, sc, sh * d[0], sw * d[1], sh * s[0], sw * s[1]), writeable=False)


def _im2col_np(x, k, d, pads, s):
    """[N, C, H, W] -> [N, C*kh*kw, L] (PyTorch's unfold layout: channel-major, then kernel row, column)."""
    n, c, h, w = x.shape
    oh = _out_len(h, pads[0], pads[1], k[0], d[0], s[0])
    ow = _out_len(w, pads[2], pads[3], k[1], d[1], s[1])
    _alloc((n, c * k[0] * k[1], oh * ow), _dt._FROM_NP[x.dtype])
    v = _windows(_padded(x, pads), k, d, s, oh, ow)
    return np.ascontiguousarray(v).reshape(n, c * k[0] * k[1], oh * ow), oh, ow


def _col2im_np(cols, c, h, w, k, d, pads, s):
    """Adjoint of _im2col_np: sum each block column back into its [C, H, W] positions."""
    n = cols.shape[0]
    kh, kw = k
    pt, pb, pl, pr = pads
    oh = _out_len(h, pt, pb, kh, d[0], s[0])
    ow = _out_len(w, pl, pr, kw, d[1], s[1])
    c6 = cols.reshape(n, c, kh, kw, oh, ow)
    out = np.zeros((n, c, h + pt + pb, w + pl + pr), dtype=cols.dtype)
    hs, ws = s[0] * (oh - 1) + 1, s[1] * (ow - 1) + 1
    for i in range(kh):
        r0 = i * d[0]
        for j in range(kw):
            c0 = j * d[1]
            out[:, :, r0:r0 + hs:s[0], c0:c0 + ws:s[1]] += c6[:, :, i, j]
    if pt or pb or pl or pr:
        out = np.ascontiguousarray(out[:, :, pt:pt + h, pl:pl + w])
    return out


def _conv_input_grad_s1(g, w, c, h, wd, d, pads):
    """Input gradient of a stride-1 convolution: W^T @ grad computed on rows of the padded width,
    so that scattering each kernel tap back is one contiguous add per tap (a flat shift)."""
    n, o, oh, ow = g.shape
    kh, kw = w.shape[2:]
    pt, pb, pl, pr = pads
    hp, wp = h + pt + pb, wd + pl + pr
    gw = np.zeros((n, o, oh, wp), dtype=g.dtype)
    gw[..., :ow] = g
    cols = np.matmul(w.reshape(o, -1).T, gw.reshape(n, o, oh * wp)).reshape(n, c, kh, kw, oh * wp)
    flat = np.zeros((n, c, hp * wp + (kw - 1) * d[1]), dtype=g.dtype)
    span = oh * wp
    for i in range(kh):
        for j in range(kw):
            sh = i * d[0] * wp + j * d[1]
            flat[:, :, sh:sh + span] += cols[:, :, i, j]
    out = flat[:, :, :hp * wp].reshape(n, c, hp, wp)
    if pt or pb or pl or pr:
        out = np.ascontiguousarray(out[:, :, pt:pt + h, pl:pl + wd])
    return out


# ---------------------------------------------------------------- N-D (1-D, 3-D convolutions, transposed ones)
# `lo` is the leading padding per spatial dim and `nwin` the number of windows per dim; trailing padding is
# whatever the last window needs, so asymmetric ('same') and output_padding cases need no special code.

def _im2col_nd(x, k, d, lo, s, nwin):
    """[N, C, *S] -> [N, C*prod(k), prod(nwin)] (channel-major, then kernel offsets, as unfold)."""
    n, c = x.shape[:2]
    size = x.shape[2:]
    nsp = len(k)
    hi = [max(0, (nwin[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1 - size[i] - lo[i]) for i in range(nsp)]
    if any(lo) or any(hi):
        xp = np.zeros((n, c) + tuple(size[i] + lo[i] + hi[i] for i in range(nsp)), dtype=x.dtype)
        xp[(slice(None), slice(None)) + tuple(slice(lo[i], lo[i] + size[i]) for i in range(nsp))] = x
    else:
        xp = x
    kk, L = int(np.prod(k)), int(np.prod(nwin))
    _alloc((n, c * kk, L), _dt._FROM_NP[x.dtype])
    st = xp.strides
    v = as_strided(xp, (n, c) + tuple(k) + tuple(nwin),
                   st[:2] + tuple(st[2 + i] * d[i] for i in range(nsp)) + tuple(st[2 + i] * s[i] for i in range(nsp)),
                   writeable=False)
    return np.ascontiguousarray(v).reshape(n, c * kk, L)


def _col2im_nd(cols, c, size, k, d, lo, s, nwin):
    """Adjoint of _im2col_nd: sum each block column back into its [C, *size] positions."""
    n, nsp = cols.shape[0], len(k)
    ext = [max(size[i] + lo[i], (nwin[i] - 1) * s[i] + d[i] * (k[i] - 1) + 1) for i in range(nsp)]
    acc = np.zeros((n, c) + tuple(ext), dtype=cols.dtype)
    cv = cols.reshape((n, c) + tuple(k) + tuple(nwin))
    for off in itertools.product(*(range(v) for v in k)):
        sl = tuple(slice(off[i] * d[i], off[i] * d[i] + s[i] * (nwin[i] - 1) + 1, s[i]) for i in range(nsp))
        acc[(slice(None), slice(None)) + sl] += cv[(slice(None), slice(None)) + off]
    return np.ascontiguousarray(acc[(slice(None), slice(None)) + tuple(slice(lo[i], lo[i] + size[i])
                                                                         for i in range(nsp))])


class Im2ColNdBackward0(Op):
    """N-D im2col (a convolution's column matrix); its adjoint is Col2ImNdBackward0."""

    @staticmethod
    def forward(ctx, input, k, d, lo, s, nwin):
        ctx.meta = (input._data.shape[1], input._data.shape[2:], k, d, lo, s, nwin)
        return _im2col_nd(input._data, k, d, lo, s, nwin)

    @staticmethod
    def backward(ctx, g):
        return Col2ImNdBackward0.apply(g, *ctx.meta)


class Col2ImNdBackward0(Op):
    @staticmethod
    def forward(ctx, cols, c, size, k, d, lo, s, nwin):
        ctx.meta = (k, d, lo, s, nwin)
        _alloc((cols._data.shape[0], c) + tuple(size), cols.dtype)
        return _col2im_nd(cols._data, c, size, k, d, lo, s, nwin)

    @staticmethod
    def backward(ctx, g):
        return Im2ColNdBackward0.apply(g, *ctx.meta)


class Im2ColBackward0(Op):
    @staticmethod
    def forward(ctx, input, k, d, pads, s):
        x = input._data
        batched = x.ndim == 4
        if not batched:
            x = x[None]
        ctx.meta = (x.shape[1], x.shape[2], x.shape[3], k, d, pads, s, batched)
        cols, _, _ = _im2col_np(x, k, d, pads, s)
        return cols if batched else cols[0]

    @staticmethod
    def backward(ctx, g):
        c, h, w, k, d, pads, s, batched = ctx.meta
        return Col2ImBackward0.apply(g, c, (h, w), k, d, pads, s)

    @staticmethod
    def backward_np(ctx, g):
        c, h, w, k, d, pads, s, batched = ctx.meta
        out = _col2im_np(g if batched else g[None], c, h, w, k, d, pads, s)
        return out if batched else out[0]


class Col2ImBackward0(Op):
    @staticmethod
    def forward(ctx, input, c, out_hw, k, d, pads, s):
        x = input._data
        batched = x.ndim == 3
        if not batched:
            x = x[None]
        ctx.meta = (k, d, pads, s)
        _alloc((x.shape[0], c) + tuple(out_hw), input.dtype)
        out = _col2im_np(x, c, out_hw[0], out_hw[1], k, d, pads, s)
        return out if batched else out[0]

    @staticmethod
    def backward(ctx, g):
        k, d, pads, s = ctx.meta
        return Im2ColBackward0.apply(g, k, d, pads, s)

    @staticmethod
    def backward_np(ctx, g):
        k, d, pads, s = ctx.meta
        if g.ndim == 3:
            return _im2col_np(g[None], k, d, pads, s)[0][0]
        return _im2col_np(g, k, d, pads, s)[0]


def _check_im2col_params(k, d, p, s):
    if k[0] <= 0 or k[1] <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {k[0]} "
                           f"kernel_width: {k[1]}")
    if s[0] <= 0 or s[1] <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {s[0]} stride_width: {s[1]}")
    if d[0] <= 0 or d[1] <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {d[0]} "
                           f"dilation_width: {d[1]}")
    if p[0] < 0 or p[1] < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {p[0]} pad_width: {p[1]}")


@register(name="im2col", category="nn", function=False)
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extract sliding blocks: [N, C, H, W] -> [N, C*kh*kw, L] (Im2ColBackward0); 3-D input is unbatched."""
    k, d, p, s = _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    nd = input._data.ndim
    if nd < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(nd, 1)}, {max(nd, 1) - 1}], "
                         f"but got {nd})")
    _check_im2col_params(k, d, p, s)
    shp = input._data.shape
    if nd > 4 or any(v == 0 for v in shp[-3:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {_shape(shp)}")
    h, w = shp[-2:]
    oh = _out_len(h, p[0], p[0], k[0], d[0], s[0])
    ow = _out_len(w, p[1], p[1], k[1], d[1], s[1])
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size=({k[0]}, {k[1]}), "
                           f"dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), calculated shape of the array "
                           f"of sliding blocks as ({oh}, {ow}), but its components must be at least one.")
    return Im2ColBackward0.apply(input, k, d, (p[0], p[0], p[1], p[1]), s)


@register(category="nn", function=False)
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum sliding blocks back into an image: [N, C*kh*kw, L] -> [N, C, H, W] (Col2ImBackward0)."""
    o, k, d, p, s = _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    shp = input._data.shape
    nd = len(shp)
    if nd not in (2, 3) or any(v == 0 for v in shp[-2:]):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                           f"non-zero dimensions for input, but got: {_shape(shp)}")
    if o[0] <= 0 or o[1] <= 0:
        raise RuntimeError(f"Expected output spatial size to be positive, but got: output_size=({o[0]}, {o[1]}).")
    _check_im2col_params(k, d, p, s)
    cdim = shp[-2]
    if cdim % (k[0] * k[1]) != 0:
        raise RuntimeError("Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                           f"but got input.size(1)={cdim} and kernel_size=({k[0]}, {k[1]}).")
    oh = _out_len(o[0], p[0], p[0], k[0], d[0], s[0])
    ow = _out_len(o[1], p[1], p[1], k[1], d[1], s[1])
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given output_size=({o[0]}, {o[1]}), kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, "
                           f"{d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), calculated shape of the "
                           f"array of sliding blocks as ({oh}, {ow}), which is invalid.")
    if shp[-1] != oh * ow:
        raise RuntimeError(f"Given output_size=({o[0]}, {o[1]}), kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, "
                           f"{d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), expected size of input's "
                           f"dimension 2 to match the calculated number of sliding blocks {oh} * {ow} = {oh * ow}, "
                           f"but got input.size(2)={shp[-1]}.")
    return Col2ImBackward0.apply(input, cdim // (k[0] * k[1]), o, k, d, (p[0], p[0], p[1], p[1]), s)
