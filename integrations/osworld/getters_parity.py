"""OSWorld's own getters on a deskrun sandbox, their values printed as JSON.

e2e's TestOSWorldGettersMatch runs this beside deskrun's getters on the
same sandbox and compares the values one by one. It builds the small part
of OSWorld's DesktopEnv that getters read (``controller``, ``vm_ip``,
``server_port``, ``chromium_port``, ``cache_dir``, ``vm_platform``,
``vm_machine``), with the controller OSWorld's own PythonController
pointed at the sandbox's OSWorld server, and calls OSWorld's getter
functions (``get_<type>``, found in desktop_env/evaluators/getters/*.py as
OSWorld's evaluate finds them) with the configs a task file gives.

Usage: getters_parity.py CONFIGS.json

CONFIGS.json is a list of ``{"name": ..., "getter": {"type": ..., ...}}``,
each optionally with ``"env": {"vm_machine": ...}``: what the env answers
for that getter instead of asking the sandbox (``aarch64`` takes OSWorld's
code path for a VM whose browser is Chromium, not Google Chrome).
The output (stdout) is one JSON object, name -> one of
``{"value": V}``, ``{"error": "..."}`` or ``{"skipped": "..."}``; a value
that names a file in the cache folder (vm_file's, vm_wallpaper's) is
printed as ``{"file": path relative to the cache folder, "sha256": hex of
its bytes}``, in lists and objects too.

Settings (environment variables):

- ``DESKRUN_OSWORLD_DIR``: the OSWorld checkout (required).
- ``OSWORLD_SERVER``: ``host:port`` of the sandbox's OSWorld server.
- ``OSWORLD_CHROMIUM``: ``host:port`` of its Chrome DevTools forward.
- ``OSWORLD_CACHE``: the cache folder the getters write fetched files to.

Only the getter modules a config needs are imported, each from its file:
importing the package desktop_env.evaluators.getters would import every
module (chrome.py imports playwright and pydrive at the top). Packages
this interpreter lacks get stand-ins that raise when used (named in the
output's "_stand_ins"): pydrive (Google Drive getters only) and
playwright. The getters that drive Chrome through playwright
(PLAYWRIGHT below) are not called without it, since they would swallow
the stand-in's error and answer [] or None.
"""

import hashlib
import importlib
import importlib.util
import json
import logging
import os
import sys
import types

OSWORLD = os.environ.get("DESKRUN_OSWORLD_DIR", "")

# Getters that connect to Chrome with playwright's connect_over_cdp.
PLAYWRIGHT = {"open_tabs_info", "active_tab_info", "page_info", "active_tab_html_parse", "active_tab_url_parse",
              "pdf_from_url", "info_from_website", "chrome_saved_address", "number_of_search_results",
              "gotoRecreationPage_and_get_html_content", "chrome_appearance_mode_ui"}

# Stand-ins for packages the getter modules import at the top but that the
# compared getters do not call: module name -> the names imported from it.
STAND_INS = {
    "playwright": [],
    "playwright.sync_api": ["sync_playwright", "expect", "TimeoutError"],
    "pydrive": [],
    "pydrive.auth": ["GoogleAuth"],
    "pydrive.drive": ["GoogleDrive", "GoogleDriveFileList", "GoogleDriveFile"],
}


class _Missing(Exception):
    """Stands for a name of a package not installed here; using it raises."""

    def __init__(self, *args, **kwargs):
        raise ImportError("stand-in: a package OSWorld's getter imports is not installed here")


def install_stand_ins():
    """Puts stand-ins for the packages of STAND_INS this interpreter lacks
    in sys.modules; returns the names of those packages."""
    used = []
    for name, attrs in STAND_INS.items():
        top = name.split(".")[0]
        if top not in used and importlib.util.find_spec(top) is not None:
            continue
        if top not in used:
            used.append(top)
        module = types.ModuleType(name)
        module.__path__ = []
        for a in attrs:
            setattr(module, a, type(a, (_Missing,), {}))
        sys.modules[name] = module
        if "." in name:
            parent, child = name.rsplit(".", 1)
            setattr(sys.modules[parent], child, module)
    return used


def load_osworld():
    """Makes desktop_env importable from the checkout without running the
    getters package's __init__ (which imports every getter module)."""
    sys.path.insert(0, OSWORLD)
    getters_dir = os.path.join(OSWORLD, "desktop_env", "evaluators", "getters")
    import desktop_env.evaluators  # noqa: F401  (its __init__ imports nothing)
    package = types.ModuleType("desktop_env.evaluators.getters")
    package.__path__ = [getters_dir]
    sys.modules[package.__name__] = package
    from desktop_env.controllers.python import PythonController
    return PythonController, getters_dir


def find_getter(getters_dir, kind):
    """OSWorld's get_<kind> from the module of getters_dir defining it."""
    want = "def get_%s(" % kind
    for file in sorted(os.listdir(getters_dir)):
        if not file.endswith(".py") or file == "__init__.py":
            continue
        with open(os.path.join(getters_dir, file)) as f:
            if want in f.read():
                module = importlib.import_module("desktop_env.evaluators.getters." + file[:-3])
                return getattr(module, "get_" + kind)
    return None


class Env:
    """The attributes of OSWorld's DesktopEnv that getters read."""

    def __init__(self, controller_class, server, chromium, cache_dir):
        host, port = server.rsplit(":", 1)
        self.vm_ip = host
        self.server_port = int(port)
        self.chromium_port = int(chromium.rsplit(":", 1)[1]) if chromium else 9222
        self.vlc_port = 8080
        self.cache_dir = cache_dir
        self.controller = controller_class(vm_ip=host, server_port=int(port))
        self.overrides = {}

    # DesktopEnv's properties: asked of the VM on each read, as there.
    @property
    def vm_platform(self):
        return self.overrides.get("vm_platform") or self.controller.get_vm_platform()

    @property
    def vm_machine(self):
        return self.overrides.get("vm_machine") or self.controller.get_vm_machine()


def shape(value, cache_dir):
    """value as JSON, files of the cache folder as their name and digest."""
    if isinstance(value, str) and value.startswith(cache_dir + os.sep) and os.path.isfile(value):
        with open(value, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        return {"file": os.path.relpath(value, cache_dir), "sha256": digest}
    if isinstance(value, (list, tuple)):
        return [shape(v, cache_dir) for v in value]
    if isinstance(value, dict):
        return {str(k): shape(v, cache_dir) for k, v in value.items()}
    if isinstance(value, bytes):
        return {"bytes_sha256": hashlib.sha256(value).hexdigest()}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def main():
    if not OSWORLD:
        sys.exit("DESKRUN_OSWORLD_DIR is not set: no OSWorld checkout to import the getters from")
    with open(sys.argv[1]) as f:
        configs = json.load(f)
    # The getters print and log as they go: keep stdout for the JSON.
    real_stdout, sys.stdout = sys.stdout, sys.stderr
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    cache_dir = os.path.abspath(os.environ["OSWORLD_CACHE"])
    os.makedirs(cache_dir, exist_ok=True)
    used = install_stand_ins()
    controller_class, getters_dir = load_osworld()
    env = Env(controller_class, os.environ["OSWORLD_SERVER"], os.environ.get("OSWORLD_CHROMIUM", ""), cache_dir)
    have_playwright = "playwright" not in used
    out = {"_stand_ins": used}
    for c in configs:
        name, config = c["name"], dict(c["getter"])
        kind = config["type"]
        env.overrides = c.get("env") or {}
        if kind in PLAYWRIGHT and not have_playwright:
            out[name] = {"skipped": "OSWorld's get_%s drives Chrome with playwright, which is not installed here" % kind}
            continue
        try:
            get = find_getter(getters_dir, kind)
            if get is None:
                out[name] = {"error": "OSWorld has no getter get_%s" % kind}
                continue
            out[name] = {"value": shape(get(env, config), cache_dir)}
        except Exception as e:  # a getter's own failure is a value to compare
            out[name] = {"error": "%s: %s" % (type(e).__name__, e)}
    sys.stdout = real_stdout
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
