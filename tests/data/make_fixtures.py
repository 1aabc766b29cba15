"""Regenerate the tensor fixtures in this directory: python tests/data/make_fixtures.py"""
import io
import json
import os
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(HERE, name)


def main():
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int64)
    index = np.array([[0, 2], [1, 0]], dtype=np.int64)
    np.save(path("x.npy"), x)
    np.save(path("x_f32.npy"), x.astype(np.float32))
    np.save(path("index.npy"), index)
    np.savez(path("pair.npz"), x=x, index=index)
    np.savez_compressed(path("single.npz"), only=x)
    with open(path("x.json"), "w") as f:
        json.dump(x.tolist(), f)
    np.save(path("fortran.npy"), np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3)))
    np.save(path("big_endian.npy"), x.astype(">i4"))
    # inputs that must be refused
    np.save(path("object.npy"), np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    np.save(path("complex.npy"), np.array([1 + 2j]))
    np.save(path("strings.npy"), np.array(["a", "b"]))
    raw = io.BytesIO()
    np.save(raw, np.arange(100, dtype=np.int64))
    with open(path("truncated.npy"), "wb") as f:
        f.write(raw.getvalue()[:200])
    with open(path("huge_header.npy"), "wb") as f:  # a valid header announcing 8 EB of data, no data
        np.lib.format.write_array_header_1_0(f, {"descr": "<f8", "fortran_order": False,
                                                 "shape": (1 << 30, 1 << 30)})
    open(path("empty.npy"), "wb").close()
    with open(path("garbage.bin"), "wb") as f:
        f.write(bytes(range(256)) * 4)
    with open(path("ragged.json"), "w") as f:
        f.write("[[1, 2], [3]]")
    with zipfile.ZipFile(path("corrupt.npz"), "w") as z:
        z.writestr("a.npy", b"\x93NUMPY garbage")
    with open(path("not_zip.npz"), "wb") as f:
        f.write(b"PK\x03\x04 this is not really a zip archive")


if __name__ == "__main__":
    main()
