"""OSWorld's own DesktopEnv on deskrun, through deskrun_provider.

Needs DESKRUN_OSWORLD_DIR, an OSWorld checkout (the tree deskrun follows:
ljxpython/OSWorldUse f6cee71, a full import of xlang-ai/OSWorld as of
2026-04), and DESKRUN_URL naming a ``deskrun serve`` on this host whose
sandboxes can grant sudo (the docker provider with an image that has sudo,
deskrun/osworld); cmd/deskrun's TestOSWorldDesktopEnv starts one and runs
this file. Without DESKRUN_OSWORLD_DIR every test is skipped.

The checkout is imported as OSWorld's scripts import it: DesktopEnv, its
controllers, getters and metrics are OSWorld's code. Python packages OSWorld
imports that this interpreter lacks (Debian has no gymnasium, playwright,
librosa, ...) are replaced by stand-in modules that raise when used, and
named in the output; DesktopEnv uses gymnasium only for its base class, and
nothing below reaches the others.
"""

import importlib.abc
import importlib.machinery
import json
import os
import struct
import sys
import types
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import deskrun_provider  # noqa: E402

OSWORLD = os.environ.get("DESKRUN_OSWORLD_DIR", "")

# OSWorld's dependencies that may be missing here; only those the
# interpreter cannot import get a stand-in.
OPTIONAL = {"gymnasium", "playwright", "pydrive", "formulas", "borb", "easyocr", "pdfplumber", "librosa", "fastdtw",
            "requests_toolbelt", "pptx", "docx", "rapidfuzz", "imagehash"}

SCREEN = (1280, 720)

# A task of OSWorld's whose setup needs sudo (os/e0df059f...): it makes
# ~/Desktop/todo_list_Jan_1 with `echo {CLIENT_PASSWORD} | sudo -S mkdir`;
# renaming it to todo_list_Jan_2 solves it.
SUDO_TASK = "evaluation_examples/examples/os/e0df059f-28a6-4169-924f-b9623e7184cc.json"
SUDO_SOLUTION = ("import os; os.rename(os.path.expanduser('~/Desktop/todo_list_Jan_1'), "
                 "os.path.expanduser('~/Desktop/todo_list_Jan_2'))")


class _Missing:
    """Stands for anything of a module this interpreter lacks."""

    def __init__(self, *args, **kwargs):
        raise ImportError("stand-in: a module OSWorld imports is not installed here")

    def __call__(self, *args, **kwargs):
        raise ImportError("stand-in: a module OSWorld imports is not installed here")


class _StandIn(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if self.__name__ == "gymnasium" and name == "Env":
            return object
        return type(name, (_Missing,), {})


class _StandIns(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers, after every real finder failed, for the modules of OPTIONAL."""

    def __init__(self):
        self.used = set()

    def find_spec(self, name, path, target=None):
        top = name.split(".")[0]
        if top not in OPTIONAL:
            return None
        self.used.add(top)
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        return _StandIn(spec.name)

    def exec_module(self, module):
        module.__path__ = []


def import_osworld():
    """Imports OSWorld's desktop_env from the checkout; returns DesktopEnv and
    the stand-ins used."""
    stand_ins = _StandIns()
    sys.meta_path.append(stand_ins)
    os.chdir(OSWORLD)  # OSWorld's scripts run from its root, reading files relative to it
    sys.path.insert(0, OSWORLD)
    from desktop_env.desktop_env import DesktopEnv
    return DesktopEnv, sorted(stand_ins.used)


@unittest.skipUnless(OSWORLD, "DESKRUN_OSWORLD_DIR is not set: no OSWorld checkout to import DesktopEnv from")
class DesktopEnvTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.DesktopEnv, used = import_osworld()
        print("OSWorld from %s; stand-ins for the modules not installed here: %s" % (OSWORLD, ", ".join(used) or "none"),
              file=sys.stderr)
        deskrun_provider.register()
        deskrun_provider.register()

    def make_env(self, **kwargs):
        env = self.DesktopEnv(provider_name="deskrun", action_space="pyautogui", screen_size=SCREEN, headless=True,
                              require_a11y_tree=False, cache_dir=os.path.join(os.environ.get("TMPDIR") or "/tmp", "osworld-cache"),
                              **kwargs)
        self.addCleanup(env.close)
        return env

    def test_env(self):
        env = self.make_env()
        self.assertEqual(env.provider_name, "deskrun")
        self.assertIsInstance(env.provider, deskrun_provider.DeskrunProvider)
        self.assertEqual(env.path_to_vm, "deskrun")
        self.assertFalse(env.is_environment_used, "a new session starts clean")
        # DesktopEnv's screen_size is the session's.
        self.assertEqual(env.vm_screen_size, {"width": SCREEN[0], "height": SCREEN[1]})
        png = env.controller.get_screenshot()
        self.assertEqual(struct.unpack(">II", png[16:24]), SCREEN)
        # The default asks for sudo (the session says whether it has it).
        session = env.provider.client.session(env.provider.session["id"])
        self.assertTrue(session.get("sudo"), session)

    def test_sudo_setup(self):
        with open(os.path.join(OSWORLD, SUDO_TASK)) as f:
            task = json.load(f)
        env = self.make_env()
        env.reset(task_config=task)
        self.assertEqual(env.evaluate(), 0, "unsolved, the task scores 0")
        env.step(SUDO_SOLUTION)
        self.assertEqual(env.evaluate(), 1, "the setup's sudo -S mkdir made the folder, and the rename solved it")
        # A second reset after a used environment: a fresh session.
        first = env.provider.session["id"]
        env.reset(task_config=task)
        self.assertNotEqual(env.provider.session["id"], first)
        self.assertEqual(env.evaluate(), 0)

    def test_alias(self):
        # deskrun_run.py --as docker: "docker" means deskrun's provider.
        deskrun_provider.register("docker")
        self.addCleanup(deskrun_provider._names.discard, "docker")
        env = self.DesktopEnv(provider_name="docker", screen_size=SCREEN, headless=True, require_a11y_tree=False)
        self.addCleanup(env.close)
        self.assertIsInstance(env.provider, deskrun_provider.DeskrunProvider)
        self.assertEqual(env.vm_screen_size, {"width": SCREEN[0], "height": SCREEN[1]})

    def test_without_sudo(self):
        # What the harness scored before sudo was the default: the setup's
        # sudo fails (the route still answers 200), so the solution finds
        # nothing to rename and the task scores 0.
        os.environ["DESKRUN_SUDO"] = "0"
        self.addCleanup(os.environ.pop, "DESKRUN_SUDO")
        with open(os.path.join(OSWORLD, SUDO_TASK)) as f:
            task = json.load(f)
        env = self.make_env()
        env.reset(task_config=task)
        env.step(SUDO_SOLUTION)
        self.assertEqual(env.evaluate(), 0)


if __name__ == "__main__":
    unittest.main(verbosity=2)
