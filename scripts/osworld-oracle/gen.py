#!/usr/bin/env python3
"""Oracle of OSWorld's metric functions: fixtures and the scores OSWorld gives them.

Usage:
    PYTHONPATH=... [OSWORLD_COMMIT=...] gen.py [--update [--stand-ins]] OSWORLD_CHECKOUT OUT_DIR [FAMILY ...]

With --update, OUT_DIR's cases.json and files/ are kept and only the cases of
the named families are replaced (each case names its family; the other
families' office and PDF files embed their writing time, so a full rerun
renames them though every score stays the same). With --stand-ins too, a
library that is not installed imports as a stand-in (OSWorld's metrics
package imports them all), for redoing a family whose metric needs few:
the versions header keeps the entries of libraries the run does not have.

OSWORLD_CHECKOUT is a checkout of OSWorld (docs/osworld.md names the commit deskrun
follows: ljxpython/OSWorldUse f6cee71, a full import of xlang-ai/OSWorld as of
2026-04). Its code is imported from there and never copied here: this script
writes input files and calls OSWorld's own metric functions on them, with the
options and rules copied from the 369 task files of evaluation_examples
(scan.py), and writes OUT_DIR/cases.json plus OUT_DIR/files/ (each file once,
named by its SHA-256). deskrun's Go tests assert every score to 1e-6.

Where OSWorld's function raises, the case records the exception
("error": "TypeError: ...") and the score OSWorld's harness gives it, 0.

Libraries, as OSWorld pins them in uv.lock at that commit, and what this
oracle ran with (cases.json repeats the versions it saw):
    Python       3.12 (OSWorld)          3.11.2 Debian bookworm /usr/bin/python3
    python-pptx  1.0.2                   1.0.2 (scanny/python-pptx tag v1.0.2, on PYTHONPATH)
    python-docx  1.2.0                   1.2.0 (python-openxml/python-docx tag v1.2.0)
    rapidfuzz    3.14.0                  3.14.0 (rapidfuzz/RapidFuzz tag v3.14.0, its pure-Python
                                         implementation: RAPIDFUZZ_IMPLEMENTATION=python)
    ImageHash    4.3.2                   4.3.2 (JohannesBuchner/imagehash tag v4.3.2)
    openpyxl     3.1.5                   3.0.9 Debian (no 3.1 source at hand)
    pandas       2.3.2                   1.5.3 Debian
    lxml         6.0.1                   4.9.2 Debian
    PyMuPDF      1.26.4                  1.21.1 Debian (python3-fitz)
    Pillow       11.0.0                  9.4.0 Debian
    numpy        1.26.4                  1.24.2 Debian
    odfpy        1.4.1                   1.4.2 Debian
    scikit-image 0.25.2                  0.19.3 Debian
    opencv       4.11.0                  4.6.0 Debian
    beautifulsoup4 4.13.5                4.11.2 Debian
    pypdf        6.0.0                   3.4.1 Debian
    PyYAML       6.0.2                   6.0 Debian
    mutagen      1.47.0                  1.46.0 Debian (check_mp3_meta)
    tldextract   5.3.0                   3.1.2 Debian, its bundled suffix list (compare_urls)
    ffmpeg       -                       5.1 Debian (writes the mp3 inputs)
    Chromium     -                       156 Debian (prints the pdftext family's HTML pages)
Not installed, replaced by stand-ins that raise when called (the metrics that
need them are not in the oracle): easyocr, librosa, fastdtw, borb, pdfplumber;
formulas (only its Parser, used by compare_table's "style" rule on
conditional formatting, which the style cases here do not carry).

The inputs are written as the applications write them: openpyxl,
python-docx, python-pptx and Pillow directly, and LibreOffice (soffice
--headless --convert-to) re-saving those files, plus hand-made adversarial
files (inline-string cells, error cells, palette and RGBA images, odt, text in
several encodings). SQLite databases (Chrome's Cookies and History, Thunderbird's
global-messages-db) are written by Python's sqlite3, zip and tar.gz archives and
EPUBs by zipfile and tarfile, mp3 files by ffmpeg, and accessibility trees as
OSWorld's server builds them (lxml elements named by role, attributes in its
namespaces); a tree is kept as a file and passed as a string ({"text_of": name}).
"""

import base64
import collections
import contextlib
import hashlib
import importlib
import importlib.abc
import importlib.machinery
import io
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import scan  # noqa: E402

STUBBED = ["easyocr", "librosa", "fastdtw", "borb", "borb.pdf", "pdfplumber", "formulas"]


class _Missing(types.ModuleType):
    """A module that is not installed: any use raises ImportError."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if self.__name__ == "formulas" and name == "Parser":
            return _FormulasParser
        return _raiser(self.__name__ + "." + name)


def _raiser(name):
    def f(*a, **k):
        raise ImportError(name + " is not installed in the oracle's environment")
    return f


class _FormulasParser:
    def ast(self, *a, **k):
        raise ImportError("formulas is not installed in the oracle's environment")


class _StandIn:
    """What a stand-in module's attributes are: classes that module-level
    code may call, subclass, index or read attributes of. A case whose
    metric reaches one scores what OSWorld scores without the library."""

    def __init__(self, *a, **k):
        pass

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _stand_in(name)

    def __call__(self, *a, **k):
        return self


class _StandInType(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _stand_in(cls.__qualname__ + "." + name)

    def __getitem__(cls, item):
        if isinstance(item, int):
            raise IndexError(item)
        return cls

    def __or__(cls, other):
        return cls

    __ror__ = __or__


def _stand_in(name):
    return _StandInType(name.rsplit(".", 1)[-1], (_StandIn,), {"__qualname__": name})


class _StandInModule(types.ModuleType):
    __path__ = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _stand_in(self.__name__ + "." + name)


class _StandIns(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """With --stand-ins, last on sys.meta_path: a module no other finder
    finds, imported by OSWorld's code under ROOT (or by a stand-in),
    imports as a stand-in, so that OSWorld's metrics package imports where
    only the libraries of the families being redone are installed. A
    library's own optional imports stay missing."""

    def __init__(self, root):
        self.root = os.path.abspath(root) + os.sep

    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in sys.stdlib_module_names:
            return None
        if "." in fullname and isinstance(sys.modules.get(fullname.rsplit(".", 1)[0]), _StandInModule):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        f = sys._getframe(1)
        while f and (f.f_code.co_filename.startswith("<frozen") or f.f_code.co_filename == __file__):
            f = f.f_back
        if f is None or not os.path.abspath(f.f_code.co_filename).startswith(self.root):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        return _StandInModule(spec.name)

    def exec_module(self, module):
        pass


def install_stubs():
    for name in STUBBED:
        try:
            importlib.import_module(name)
        except ImportError:
            sys.modules[name] = _Missing(name)
    if "fastdtw" in sys.modules and isinstance(sys.modules["fastdtw"], _Missing):
        sys.modules["fastdtw"].fastdtw = _raiser("fastdtw.fastdtw")


def versions():
    out = collections.OrderedDict()
    out["python"] = sys.version.split()[0]
    for mod, name in [("pptx", "python-pptx"), ("docx", "python-docx"), ("rapidfuzz", "rapidfuzz"),
                      ("imagehash", "ImageHash"), ("openpyxl", "openpyxl"), ("pandas", "pandas"),
                      ("lxml.etree", "lxml"), ("fitz", "PyMuPDF"), ("PIL", "Pillow"), ("numpy", "numpy"),
                      ("skimage", "scikit-image"), ("cv2", "opencv"), ("bs4", "beautifulsoup4"),
                      ("pypdf", "pypdf"), ("yaml", "PyYAML"), ("odf", "odfpy")]:
        try:
            m = importlib.import_module(mod)
        except Exception:
            continue
        if getattr(m, "__file__", None) is None:
            continue  # a stand-in for a library this run does not have
        v = getattr(m, "__version__", None)
        if mod == "lxml.etree":
            v = ".".join(map(str, m.LXML_VERSION[:3]))
        if mod == "fitz":
            v = getattr(m, "VersionBind", v)
        if mod == "odf":
            try:
                from odf import namespaces  # noqa: F401
                import odf.opendocument as od
                v = getattr(od, "__version__", None) or "1.4.2"
            except Exception:
                pass
        out[name] = str(v)
    for name, argv in [("LibreOffice", ["soffice", "--version"]), ("Chromium", ["chromium", "--version"])]:
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            out[name] = r.stdout.strip()
        except Exception:
            pass
    return out


# ---------------------------------------------------------------- file store

class Store:
    """Files written once each, named by the SHA-256 of their bytes."""

    def __init__(self, out):
        self.dir = os.path.join(out, "files")
        os.makedirs(self.dir, exist_ok=True)
        self.names = set()

    def put(self, data, ext):
        h = hashlib.sha256(data).hexdigest()[:20]
        name = h + "." + ext
        if name not in self.names:
            with open(os.path.join(self.dir, name), "wb") as f:
                f.write(data)
            self.names.add(name)
        return name


def F(name, as_=None):
    """A file argument: the metric gets the path of a copy of files/NAME,
    named AS (default: result/expected plus the extension)."""
    d = {"file": name}
    if as_:
        d["as"] = as_
    return d


def T(name):
    """A text argument kept as a file: the metric gets files/NAME's
    content as a string (an accessibility tree, for one)."""
    return {"text_of": name}


class Cases:
    def __init__(self):
        self.items = []
        self.family = ""  # the family whose cases are being added

    def add(self, metric, result, expected, options=None, note="", extra=None, args=None):
        c = collections.OrderedDict()
        c["metric"] = metric
        c["family"] = self.family
        c["note"] = note
        c["result"] = result
        c["expected"] = expected
        if options:
            c["options"] = options
        if extra:
            c["extra"] = extra  # more files the metric finds beside result (name -> file)
        if args:
            c["args"] = args  # call shape other than (result, expected, **options)
        self.items.append(c)


# ---------------------------------------------------------------- running

class Timeout(Exception):
    pass


def _alarm(*_):
    raise Timeout("timed out")


def materialize(case, work, files_dir):
    """Copy the case's files into WORK under their names and return the
    arguments with paths in place of file references."""
    os.makedirs(work, exist_ok=True)

    def place(v, default):
        if isinstance(v, dict) and set(v) == {"text_of"}:
            with open(os.path.join(files_dir, v["text_of"]), encoding="utf-8") as f:
                return f.read()
        if isinstance(v, dict) and set(v) <= {"file", "as"} and "file" in v:
            name = v.get("as") or default + os.path.splitext(v["file"])[1]
            p = os.path.join(work, name)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            shutil.copyfile(os.path.join(files_dir, v["file"]), p)
            return p
        if isinstance(v, list):
            return [place(x, "%s%d" % (default, i)) for i, x in enumerate(v)]
        return v

    res = place(case["result"], "result")
    exp = place(case["expected"], "expected")
    for name, f in (case.get("extra") or {}).items():
        p = os.path.join(work, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        shutil.copyfile(os.path.join(files_dir, f), p)
    return res, exp


def call(fn, case, res, exp):
    opts = case.get("options") or {}
    shape = case.get("args")
    if shape == "result_only":
        return fn(res, **opts)
    if shape == "result_options_positional":
        return fn(res, exp, opts)
    return fn(res, exp, **opts)


def run_cases(cases, metrics, files_dir):
    cwd = os.getcwd()
    top = tempfile.mkdtemp(prefix="osworld-oracle-")
    signal.signal(signal.SIGALRM, _alarm)
    out = []
    for i, case in enumerate(cases):
        work = os.path.join(top, "c%d" % i)
        res, exp = materialize(case, work, files_dir)
        os.chdir(work)
        fn = getattr(metrics, case["metric"])
        rec = collections.OrderedDict(case)
        devnull = open(os.devnull, "w")
        signal.alarm(60)
        try:
            with contextlib.redirect_stdout(devnull):
                v = call(fn, case, res, exp)
            signal.alarm(0)
            if isinstance(v, bool):
                v = float(v)
            if v is None:
                rec["error"] = "returned None"
                rec["score"] = 0.0
            else:
                rec["score"] = float(v)
        except Timeout:
            rec["error"] = "Timeout: over 60 s"
            rec["score"] = 0.0
        except BaseException as e:  # noqa: B902 - OSWorld's harness gives 0 for any exception
            signal.alarm(0)
            if isinstance(e, KeyboardInterrupt):
                raise
            msg = str(e).replace(work + "/", "")
            rec["error"] = "%s: %s" % (type(e).__name__, msg[:200])
            rec["score"] = 0.0
        finally:
            devnull.close()
            os.chdir(cwd)
            shutil.rmtree(work, ignore_errors=True)
        out.append(rec)
    shutil.rmtree(top, ignore_errors=True)
    return out


# ---------------------------------------------------------------- LibreOffice

def soffice_convert(paths, fmt, outdir):
    """Re-save PATHS through LibreOffice headless as FMT (e.g. "xlsx",
    "docx:MS Word 2007 XML", "pdf", "odt", "pptx"); returns {path: bytes}."""
    os.makedirs(outdir, exist_ok=True)
    profile = tempfile.mkdtemp(prefix="oracle-lo-")
    out = {}
    for chunk in [paths[i:i + 40] for i in range(0, len(paths), 40)]:
        subprocess.run(["soffice", "-env:UserInstallation=file://" + profile, "--headless",
                        "--convert-to", fmt, "--outdir", outdir] + chunk,
                       capture_output=True, timeout=600)
    ext = fmt.split(":")[0]
    for p in paths:
        q = os.path.join(outdir, os.path.splitext(os.path.basename(p))[0] + "." + ext)
        if os.path.exists(q):
            with open(q, "rb") as f:
                out[p] = f.read()
    shutil.rmtree(profile, ignore_errors=True)
    return out


# ---------------------------------------------------------------- main

def main():
    args = sys.argv[1:]
    update = "--update" in args
    stand_ins = "--stand-ins" in args
    args = [a for a in args if a not in ("--update", "--stand-ins")]
    if len(args) < 2 or (update and len(args) < 3) or (stand_ins and not update):
        sys.exit("usage: gen.py [--update [--stand-ins]] OSWORLD_CHECKOUT OUT_DIR [family ...]")
    root, out = args[0], args[1]
    if stand_ins:
        sys.meta_path.append(_StandIns(root))
    only = set(args[2:])
    os.environ.setdefault("RAPIDFUZZ_IMPLEMENTATION", "python")
    install_stubs()
    sys.path.insert(0, root)
    logging.disable(logging.CRITICAL)
    import warnings
    warnings.filterwarnings("ignore")
    metrics = importlib.import_module("desktop_env.evaluators.metrics")
    logging.disable(logging.CRITICAL)
    tasks = scan.scan(root)

    kept, kept_versions = [], collections.OrderedDict()
    if update:
        with open(os.path.join(out, "cases.json")) as f:
            old = json.load(f, object_pairs_hook=collections.OrderedDict)
        kept, kept_versions = old["cases"], old.get("versions") or kept_versions
    elif os.path.isdir(os.path.join(out, "files")):
        shutil.rmtree(os.path.join(out, "files"))
    store = Store(out)
    store.names.update(os.listdir(store.dir))
    cases = Cases()
    import families
    for name, fam in families.FAMILIES:
        if only and name not in only:
            continue
        n = len(cases.items)
        cases.family = name
        fam(cases, store, tasks)
        print("%-12s %5d cases" % (name, len(cases.items) - n), file=sys.stderr)

    results = run_cases(cases.items, metrics, store.dir)
    results = [c for c in kept if c["family"] not in only] + results
    # drop files no case uses (a family may write more than it keeps)
    used = set()

    def refs(v):
        if isinstance(v, dict) and "file" in v:
            used.add(v["file"])
        elif isinstance(v, dict) and "text_of" in v:
            used.add(v["text_of"])
        elif isinstance(v, list):
            for x in v:
                refs(x)
    for c in results:
        refs(c["result"])
        refs(c["expected"])
        for f in (c.get("extra") or {}).values():
            used.add(f)
    for name in os.listdir(store.dir):
        if name not in used:
            os.remove(os.path.join(store.dir, name))

    doc = collections.OrderedDict()
    doc["osworld"] = osworld_commit(root)
    # the kept families ran with the versions recorded before: a library
    # this run lacks keeps its entry, one it has is recorded as it is now
    doc["versions"] = kept_versions
    doc["versions"].update(versions())
    doc["cases"] = results
    # one case a line: small, and a rerun's diff reads case by case
    with open(os.path.join(out, "cases.json"), "w") as f:
        f.write('{"osworld": %s,\n"versions": %s,\n"cases": [\n' % (
            json.dumps(doc["osworld"]), json.dumps(doc["versions"], ensure_ascii=False)))
        f.write(",\n".join(json.dumps(c, ensure_ascii=False, separators=(",", ":")) for c in results))
        f.write("\n]}\n")
    per = collections.Counter(c["metric"] for c in results)
    errs = collections.Counter(c["metric"] for c in results if "error" in c)
    for m, n in sorted(per.items()):
        print("%-45s %4d cases %4d raise" % (m, n, errs[m]), file=sys.stderr)
    print("%d cases, %d metrics" % (len(results), len(per)), file=sys.stderr)


def osworld_commit(root):
    """OSWORLD_COMMIT when set (it names the repository too), else the
    checkout's commit as git answers it."""
    if os.environ.get("OSWORLD_COMMIT"):
        return os.environ["OSWORLD_COMMIT"]
    try:
        c = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True,
                           text=True).stdout.strip()
    except Exception:
        c = ""
    return c or os.environ.get("OSWORLD_COMMIT", "")


if __name__ == "__main__":
    main()
