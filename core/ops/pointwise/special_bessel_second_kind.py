"""torch.special's airy_ai, bessel_y0, bessel_y1, modified_bessel_k0/k1 and scaled_modified_bessel_k0/k1:
PyTorch's Cephes kernels (ATen/native/Math.h: the same rational and Chebyshev coefficients, branch points
and special values), evaluated elementwise in float64 and rounded to the result dtype. Like torch, none has
a gradient (results never require grad), integer inputs compute in the default float dtype.
Registered as special.<name> (core.special lists them)."""
from __future__ import annotations

import numpy as np

from ... import dtypes as _dt
from ...tensor import Tensor
from ..registry import register
from . import _special_kernels as K
from ._common import _out, quietly
from .special_poly import _no_grad

_2_OVER_PI = 0.636619772367581343075535053490057448
_SQRT_2_OVER_PI = 0.797884560802865355879892119868763737
_PI_4 = 0.785398163397448309615660845819875721
_3PI_4 = 2.356194490192344928846982537459627163
_1_SQRT_PI = 5.64189583547756286948e-01

_AIRY_AN = np.array([
    0.346538101525629, 12.007595273964581, 76.27960536152345,
    168.08922493463058, 159.75639135016442, 70.53609068404442,
    14.026469116338967, 1.0,
])
_AIRY_AD = np.array([
    0.5675945326387702, 14.75625625848472, 84.51389701414746,
    177.31808814540045, 164.2346928715297, 71.47784008255756,
    14.095913560783403, 1.0,
])
_AIRY_AFN = np.array([
    -0.1316963234183318, -0.6264565444319123, -0.6931580360369335,
    -0.2797799815451191, -0.04919001326095003, -0.004062659235948854,
    -0.0001592764962392621, -2.776491081552329e-06, -1.6778769848911465e-08,
])
_AIRY_AFD = np.array([
    13.356042070655324, 32.682503279522464, 26.736704094149957,
    9.187074029072596, 1.4752914677166642, 0.11568717379518804,
    0.004402916416152112, 7.547203482874142e-05, 4.5185009297058035e-07,
])
_AIRY_AGN = np.array([
    0.01973399320916857, 0.39110302961568827, 1.0657989759959559,
    0.9391692298166502, 0.35146565610554764, 0.06338889196289255,
    0.005858041130483885, 0.000282851600836737, 6.98793669997261e-06,
    8.117892395543892e-08, 3.415517847659236e-10,
])
_AIRY_AGD = np.array([
    9.30892908077442, 19.835292871831214, 15.564662893286462,
    5.476860694229755, 0.9542936116189619, 0.08645808263523921,
    0.004126565238242226, 0.00010125908511650914, 1.1716673321441352e-06,
    4.9183457006293e-09,
])
_Y0_PP = np.array([
    0.0007969367292973471, 0.08283523921074408, 1.239533716464143,
    5.447250030587687, 8.74716500199817, 5.303240382353949,
    1.0,
])
_Y0_PQ = np.array([
    0.0009244088105588637, 0.08562884743544745, 1.2535274390105895,
    5.470977403304171, 8.761908832370695, 5.306052882353947,
    1.0,
])
_Y0_QP = np.array([
    -0.011366383889846916, -1.2825271867050931, -19.553954425773597,
    -93.20601521237683, -177.68116798048806, -147.07750515495118,
    -51.41053267665993, -6.050143506007285,
])
_Y0_QQ = np.array([
    64.3178256118178, 856.4300259769806, 3882.4018360540163,
    7240.467741956525, 5930.727011873169, 2062.0933166032783,
    242.0057402402914,
])
_Y0_YP = np.array([
    15592.436785523574, -14663929.59039716, 5435264770.518765,
    -982136065717.9115, 87590639439536.7, -3466283033847297.0,
    4.4273326857256984e+16, -1.8495080043698668e+16,
])
_Y0_YQ = np.array([
    1041.2835366425984, 626107.330137135, 268919633.39381415,
    86400248710.3935, 20297961275010.555, 3171577528429750.5,
    2.5059625617265306e+17,
])
_Y1_PP = np.array([
    0.0007621256162081731, 0.07313970569409176, 1.1271960812968493,
    5.112079511468076, 8.424045901417724, 5.214515986823615,
    1.0,
])
_Y1_PQ = np.array([
    0.0005713231280725487, 0.06884559087544954, 1.105142326340617,
    5.073863861286015, 8.399855543276042, 5.209828486823619,
    1.0,
])
_Y1_QP = np.array([
    0.05108625947501766, 4.982138729512334, 75.82382841325453,
    366.7796093601508, 710.8563049989261, 597.4896124006136,
    211.68875710057213, 25.207020585802372,
])
_Y1_QQ = np.array([
    74.23732770356752, 1056.4488603826283, 4986.410583376536,
    9562.318924047562, 7997.041604473507, 2826.1927851763908,
    336.0936078106983,
])
_Y1_YP = np.array([
    1263204747.9017804, -647355876379.1603, 114509511541823.73,
    -8127702555013251.0, 2.024394757135949e+17, -7.788771962659501e+17,
])
_Y1_YQ = np.array([
    594.3015923461282, 235564.09294306856, 73481194.44597217,
    18760131610.870617, 3882312774962.3857, 620557727146953.8,
    6.871410873553005e+16, 3.9727060811656064e+18,
])
_K0_A = np.array([
    1.374465435613523e-16, 4.25981614279661e-14, 1.0349695257633842e-11,
    1.904516377220209e-09, 2.5347910790261494e-07, 2.286212103119452e-05,
    0.001264615411446926, 0.0359799365153615, 0.3442898999246285,
    -0.5353273932339028,
])
_K0_B = np.array([
    5.300433772686263e-18, -1.6475804301524212e-17, 5.2103915050390274e-17,
    -1.678231096805412e-16, 5.512055978524319e-16, -1.848593377343779e-15,
    6.3400764774050706e-15, -2.2275133269916698e-14, 8.032890775363575e-14,
    -2.9800969231727303e-13, 1.140340588208475e-12, -4.514597883373944e-12,
    1.8559491149547177e-11, -7.957489244477107e-11, 3.577397281400301e-10,
    -1.69753450938906e-09, 8.574034017414225e-09, -4.660489897687948e-08,
    2.766813639445015e-07, -1.8317555227191195e-06, 1.39498137188765e-05,
    -0.00012849549581627802, 0.0015698838857300533, -0.0314481013119645,
    2.4403030820659555,
])
_K1_A = np.array([
    -7.023863479386288e-18, -2.427449850519366e-15, -6.666901694199329e-13,
    -1.4114883926335278e-10, -2.213387630734726e-08, -2.4334061415659684e-06,
    -0.0001730288957513052, -0.006975723859639864, -0.12261118082265715,
    -0.3531559607765449, 1.5253002273389478,
])
_K1_B = np.array([
    -5.756744483665017e-18, 1.7940508731475592e-17, -5.689462558442859e-17,
    1.838093544366639e-16, -6.057047248373319e-16, 2.038703165624334e-15,
    -7.019837090418314e-15, 2.4771544244813043e-14, -8.976705182324994e-14,
    3.3484196660784293e-13, -1.2891739609510289e-12, 5.13963967348173e-12,
    -2.1299678384275683e-11, 9.218315187605006e-11, -4.1903547593418965e-10,
    2.015049755197033e-09, -1.0345762465678097e-08, 5.7410841254500495e-08,
    -3.5019606030878126e-07, 2.406484947837217e-06, -1.936197974166083e-05,
    0.00019521551847135162, -0.002857816859622779, 0.10392373657681724,
    2.7206261904844427,
])

# J0 shares Y0's asymptotic P and Q coefficients (the same Cephes tables)
_J0_PP, _J0_PQ, _J0_QP, _J0_QQ = _Y0_PP, _Y0_PQ, _Y0_QP, _Y0_QQ
_J0_RP = np.array([
    -4794432209.782018, 1956174919465.5657, -249248344360967.72,
    9708622510473064.0,
])
_J0_RQ = np.array([
    499.563147152651, 173785.4016763747, 48440965.83399621,
    11185553704.535683, 2112775201154.892, 310518229857422.56,
    3.1812195594320496e+16, 1.7108629408104315e+18,
])
# J1 shares Y1's asymptotic P and Q coefficients (the same Cephes tables)
_J1_PP, _J1_PQ, _J1_QP, _J1_QQ = _Y1_PP, _Y1_PQ, _Y1_QP, _Y1_QQ
_J1_RP = np.array([
    -899971225.7055594, 452228297998.19403, -72749424522181.83,
    3682957328638529.0,
])
_J1_RQ = np.array([
    620.8364781180543, 256987.25675774884, 83514679.14319493,
    22151159547.97925, 4749141220799.914, 784369607876235.9,
    8.952223361846274e+16, 5.322786203326801e+18,
])


def _horner(coef, z):
    """coef[0] z^(n-1) + ... + coef[n-1], as torch's `p = p * z + C[i]` loops."""
    p = np.zeros_like(z)
    for c in coef:
        p = p * z + c
    return p


def _chbevl(coef, y):
    """Clenshaw's recurrence of torch's k0/k1 loops: returns (a - p) / 2 for a Chebyshev series at y."""
    p = np.zeros_like(y)
    q = np.zeros_like(y)
    a = np.full_like(y, coef[0])
    for c in coef[1:]:
        p, q = q, a
        a = y * q - p + c
    return 0.5 * (a - p)


def _airy_series(x):
    """The Maclaurin series f, g of Ai (torch iterates until the term is below machine epsilon)."""
    f = np.ones_like(x)
    g = x.copy()
    k = np.ones_like(x)
    m = np.ones_like(x)
    n = x.copy()
    z = x * x * x
    live = np.ones(x.shape, bool)
    for _ in range(200):
        m = np.where(live, m * z, m)
        k = np.where(live, k + 1, k)
        m = np.where(live, m / k, m)
        n = np.where(live, n * z, n)
        k = np.where(live, k + 1, k)
        n = np.where(live, n / k, n)
        m = np.where(live, m / k, m)
        f = np.where(live, f + m, f)
        k = np.where(live, k + 1, k)
        n = np.where(live, n / k, n)
        g = np.where(live, g + n, g)
        live &= np.abs(m / f) > np.finfo(np.float64).eps
        if not live.any():
            break
    return 0.355028053887817239260 * f - 0.258819403792806798405 * g


def airy_ai(x, work=np.float64):
    """Ai(x): the asymptotic forms below -2.09 and above 2.09 (pure above 8.32), the series between. The phase
    t of the oscillating branch is rounded to the working dtype `work` as torch's float kernel rounds it (it
    dominates float32's error for large -x)."""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        xn = np.where(x < -2.09, x, -3.0)
        z = 1.0 / (-2.0 * xn * np.sqrt(-xn) / 3.0)
        zz = z * z
        xw = xn.astype(work)
        t = (work(-2.0) * xw * np.sqrt(-xw) / work(3.0) + work(0.25 * np.pi)).astype(np.float64)
        neg = _1_SQRT_PI / np.sqrt(np.sqrt(-xn)) * (np.sin(t) * (1.0 + zz * _horner(_AIRY_AFN, zz) / _horner(_AIRY_AFD, zz))
                                                   - np.cos(t) * (z * _horner(_AIRY_AGN, zz) / _horner(_AIRY_AGD, zz)))
        xp = np.where(x >= 2.09, x, 3.0)
        zeta = 2.0 * xp * np.sqrt(xp) / 3.0
        pos = _1_SQRT_PI * (_horner(_AIRY_AN, 1.0 / zeta) / _horner(_AIRY_AD, 1.0 / zeta)) / (
            2.0 * np.sqrt(np.sqrt(xp)) * np.exp(zeta))
        mid = _airy_series(np.where((x >= -2.09) & (x <= 8.3203353), x, 0.0))
    r = np.where(x < -2.09, neg, np.where(x >= 2.09, pos, mid))
    r = np.where(x > 103.892, 0.0, r)
    return np.where(np.isinf(x) | np.isnan(x), np.nan, r)


def _j_large(x, pp, pq, qp, qq, shift):
    """The asymptotic (P, Q) form of J0/J1 for x > 5 (x > 0)."""
    w = 25.0 / (x * x)
    return (_horner(pp, w) / _horner(pq, w) * np.cos(x - shift)
            - 5.0 / x * (_horner(qp, w) / _horner(qq, w)) * np.sin(x - shift)) * _SQRT_2_OVER_PI / np.sqrt(x)


def _j0(x):
    """torch's bessel_j0_forward (Cephes j0) for x >= 0: Y0's log term needs its accuracy."""
    with np.errstate(all="ignore"):
        xs = np.where(x <= 5.0, x, 1.0)
        z = xs * xs
        small = (z - 5.78318596294678452118e+00) * (z - 3.04712623436620863991e+01) * _horner(_J0_RP, z) / \
            _horner(_J0_RQ, z)
        small = np.where(xs < 0.00001, 1.0 - z / 4.0, small)
        large = _j_large(np.where(x > 5.0, x, 6.0), _J0_PP, _J0_PQ, _J0_QP, _J0_QQ, _PI_4)
    return np.where(x <= 5.0, small, large)


def _j1(x):
    """torch's bessel_j1_forward (Cephes j1) for x >= 0."""
    with np.errstate(all="ignore"):
        xs = np.where(x <= 5.0, x, 1.0)
        z = xs * xs
        small = _horner(_J1_RP, z) / _horner(_J1_RQ, z) * xs * (z - 1.46819706421238932572e+01) * (
            z - 4.92184563216946036703e+01)
        large = _j_large(np.where(x > 5.0, x, 6.0), _J1_PP, _J1_PQ, _J1_QP, _J1_QQ, _3PI_4)
    return np.where(x <= 5.0, small, large)


def _bessel_y_large(x, pp, pq, qp, qq, shift):
    """The asymptotic (P, Q) form of Y0/Y1 for x > 5."""
    w = 25.0 / (x * x)
    return (_horner(pp, w) / _horner(pq, w) * np.sin(x - shift)
            + 5.0 / x * (_horner(qp, w) / _horner(qq, w)) * np.cos(x - shift)) * _SQRT_2_OVER_PI / np.sqrt(x)


def bessel_y0(x):
    """Y0(x): a rational function plus (2/pi) log(x) J0(x) up to 5, the asymptotic form above; -inf at 0,
    NaN below."""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        xs = np.where((x <= 5.0) & (x > 0), x, 1.0)
        small = _horner(_Y0_YP, xs * xs) / _horner(_Y0_YQ, xs * xs) + _2_OVER_PI * np.log(xs) * _j0(xs)
        xl = np.where(x > 5.0, x, 6.0)
        large = _bessel_y_large(xl, _Y0_PP, _Y0_PQ, _Y0_QP, _Y0_QQ, _PI_4)
    r = np.where(x <= 5.0, small, large)
    r = np.where(x < 0, np.nan, r)
    return np.where(x == 0, -np.inf, np.where(np.isnan(x), np.nan, r))


def bessel_y1(x):
    """Y1(x): x times a rational function plus (2/pi)(J1(x) log(x) - 1/x) up to 5, the asymptotic form
    above; -inf at 0, NaN below."""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        xs = np.where((x <= 5.0) & (x > 0), x, 1.0)
        small = xs * (_horner(_Y1_YP, xs * xs) / _horner(_Y1_YQ, xs * xs)) + _2_OVER_PI * (
            _j1(xs) * np.log(xs) - 1.0 / xs)
        xl = np.where(x > 5.0, x, 6.0)
        large = _bessel_y_large(xl, _Y1_PP, _Y1_PQ, _Y1_QP, _Y1_QQ, _3PI_4)
    r = np.where(x <= 5.0, small, large)
    r = np.where(x < 0, np.nan, r)
    return np.where(x == 0, -np.inf, np.where(np.isnan(x), np.nan, r))


def _k(x, order, scaled):
    """K0/K1 (times exp(x) when scaled): Chebyshev series in x^2 - 2 up to 2 (with the log(x/2) I term),
    in 8/x - 2 above; inf at 0, NaN below."""
    x = np.asarray(x, np.float64)
    a_coef, b_coef = (_K0_A, _K0_B) if order == 0 else (_K1_A, _K1_B)
    with np.errstate(all="ignore"):
        xs = np.where((x <= 2.0) & (x > 0), x, 1.0)
        series = _chbevl(a_coef, xs * xs - 2.0)
        if order == 0:
            small = series - np.log(0.5 * xs) * np.i0(xs)
        else:
            small = np.log(0.5 * xs) * K.i1(xs) + series / xs
        small = small * np.exp(xs) if scaled else small
        xl = np.where(x > 2.0, x, 3.0)
        large = _chbevl(b_coef, 8.0 / xl - 2.0) / np.sqrt(xl)
        large = large if scaled else np.exp(-xl) * large
    r = np.where(x <= 2.0, small, large)
    r = np.where(x < 0, np.nan, r)
    r = np.where(x == 0, np.inf, r)
    return np.where(np.isnan(x), np.nan, r)


# not _no_grad (which evaluates in float64): airy_ai's phase is rounded to the input's dtype

def _airy_fn(input, *, out=None):
    d = input._data if input._data.dtype.kind == "f" else input._data.astype(_dt.get_default_dtype().np)
    r = quietly(airy_ai, d.astype(np.float64), d.dtype.type)
    return _out(Tensor._make(np.asarray(r).astype(d.dtype)), out)


_airy_fn.__name__, _airy_fn.__doc__ = "airy_ai", "special.airy_ai(input) (no gradient)."
airy_ai_op = register(name="special.airy_ai", category="pointwise", function=False)(_airy_fn)
bessel_y0_op = _no_grad("bessel_y0", bessel_y0)
bessel_y1_op = _no_grad("bessel_y1", bessel_y1)
modified_bessel_k0 = _no_grad("modified_bessel_k0", lambda x: _k(x, 0, False))
modified_bessel_k1 = _no_grad("modified_bessel_k1", lambda x: _k(x, 1, False))
scaled_modified_bessel_k0 = _no_grad("scaled_modified_bessel_k0", lambda x: _k(x, 0, True))
scaled_modified_bessel_k1 = _no_grad("scaled_modified_bessel_k1", lambda x: _k(x, 1, True))
