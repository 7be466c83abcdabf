#!/usr/bin/env python3
"""Read a dablot-zero model file (safetensors layout) with numpy only.

Usage: read_model.py MODEL [--json]

Prints the metadata and every tensor's shape; with --json prints
{"metadata": {...}, "tensors": {name: {"shape": [...], "sum": float}}}.
Exits non-zero if the file is malformed or a checksum does not match.
"""
import hashlib
import json
import struct
import sys

import numpy as np


def metadata_checksum(meta):
    """sha256 of the metadata but metadata_sha256: entries by key (bytewise),
    each key and value preceded by its length as 8 little-endian bytes."""
    h = hashlib.sha256()
    for k in sorted(meta, key=lambda k: k.encode("utf-8")):
        if k == "metadata_sha256":
            continue
        for s in (k.encode("utf-8"), meta[k].encode("utf-8")):
            h.update(struct.pack("<Q", len(s)))
            h.update(s)
    return h.hexdigest()


def read_model(path):
    with open(path, "rb") as f:
        buf = f.read()
    if len(buf) < 8:
        raise ValueError("truncated file")
    (n,) = struct.unpack("<Q", buf[:8])
    if n == 0 or n > len(buf) - 8:
        raise ValueError("bad header length %d" % n)
    header = json.loads(buf[8 : 8 + n].decode("utf-8"))
    data = buf[8 + n :]
    meta = header.pop("__metadata__", {})
    if hashlib.sha256(data).hexdigest() != meta.get("data_sha256"):
        raise ValueError("checksum mismatch")
    if "metadata_sha256" in meta and metadata_checksum(meta) != meta["metadata_sha256"]:
        raise ValueError("metadata checksum mismatch")
    tensors = {}
    for name, h in header.items():
        if h["dtype"] != "F32":
            raise ValueError("tensor %s has dtype %s" % (name, h["dtype"]))
        begin, end = h["data_offsets"]
        arr = np.frombuffer(data[begin:end], dtype="<f4").reshape(h["shape"])
        tensors[name] = arr
    return meta, tensors


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    meta, tensors = read_model(sys.argv[1])
    if "--json" in sys.argv[2:]:
        out = {
            "metadata": meta,
            "tensors": {
                k: {"shape": list(v.shape), "sum": float(v.astype(np.float64).sum())}
                for k, v in tensors.items()
            },
        }
        print(json.dumps(out))
        return 0
    for k, v in sorted(meta.items()):
        print("%s: %s" % (k, v))
    for k, v in tensors.items():
        print("%-20s %s" % (k, v.shape))
    return 0


if __name__ == "__main__":
    sys.exit(main())
