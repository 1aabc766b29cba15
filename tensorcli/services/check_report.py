"""The machine-readable reports of ``tensorcli check``: JSON (schema ``tensorcli.check/2``, docs/json.md) and JUnit XML."""
from __future__ import annotations

import re
import socket
import xml.etree.ElementTree as ET
from datetime import datetime

from . import vocab
from .cases import Case
from .checks import CaseResult, Report


def to_json(report: Report) -> dict:
    return _v2({"summary": report.summary(), "files": report.files,
            "cases": [r.to_dict() for r in report.results]})


def malformed_json(errors) -> dict:
    return _v2({"malformed": [e.to_dict() for e in errors]})


def _v2(body: dict) -> dict:
    """docs/json.md's vocabulary: schema/command first, durations as wall_s, dtypes as "float32"."""
    return vocab.envelope("check", vocab.normalize(body, {"duration": "wall_s"}))


def to_junit(report: Report) -> str:
    """JUnit XML: <testsuites> with one <testsuite> per file and a <testcase> per case."""
    stamp = datetime.now().replace(microsecond=0).isoformat()   # the JUnit schema's form: no zone
    s = report.summary()
    root = ET.Element("testsuites", {
        "name": "tensorcli check", "tests": str(s["tests"]), "failures": str(s["failed"]),
        "errors": str(s["errors"]), "skipped": str(s["skipped"]), "time": f"{report.duration:.6f}"})
    by_file: dict = {}
    for r in report.results:
        by_file.setdefault(r.file, []).append(r)
    try:
        host = socket.gethostname()
    except OSError:   # pragma: no cover
        host = "localhost"
    for i, (fname, rs) in enumerate(by_file.items()):
        suite = ET.SubElement(root, "testsuite", {
            "name": _xml_safe(fname), "id": str(i), "tests": str(len(rs)),
            "failures": str(sum(r.status == "failed" for r in rs)),
            "errors": str(sum(r.status == "error" for r in rs)),
            "skipped": str(sum(r.status == "skipped" for r in rs)),
            "time": f"{sum(r.duration for r in rs):.6f}", "timestamp": stamp, "hostname": host})
        for r in rs:
            tc = ET.SubElement(suite, "testcase", {"name": _xml_safe(r.name), "classname": _xml_safe(r.classname),
                                                   "time": f"{r.duration:.6f}"})
            if r.status in ("failed", "error"):
                tag = "failure" if r.status == "failed" else "error"
                el = ET.SubElement(tc, tag, {"message": _xml_safe(r.message),
                                             "type": _failure_type(r, tag)})
                el.text = _xml_safe("\n".join(r.details))
            elif r.status == "skipped":
                ET.SubElement(tc, "skipped", {"message": _xml_safe(r.message)})
            if r.torch is not None:
                out = ET.SubElement(tc, "system-out")
                out.text = _xml_safe(f"torch: {r.torch['status']}: {r.torch.get('message', '')}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _failure_type(r, tag) -> str:
    if tag != "failure":
        return "Error"
    return "Timeout" if r.message.startswith("timed out after") else "AssertionError"


def malformed_junit(errors) -> str:
    """JUnit XML for malformed files: one erroring testcase per file, so CI shows what is wrong."""
    results = [CaseResult(e.file, e.case or "(case file)", Case(e.file, 0, "", "", "", {}).classname, "error",
                          0.0, str(e), [str(e)]) for e in errors]
    return to_junit(Report(sorted({e.file for e in errors}), results))


_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_safe(s):
    """Characters XML 1.0 cannot hold (control characters, lone surrogates) written as \\xNN /
    \\uNNNN, so every XML parser accepts the report and the name stays recognisable."""
    return _XML_BAD.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 256
                        else f"\\u{ord(m.group()):04x}", str(s))
