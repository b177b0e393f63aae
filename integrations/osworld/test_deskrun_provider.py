"""Tests of deskrun_provider against a live deskrun server.

Needs DESKRUN_URL (and DESKRUN_TOKEN when the server has one) naming a
``deskrun serve`` on this host; cmd/deskrun's Go tests start one and run this
file. The calls below are made as OSWorld's DesktopEnv, PythonController and
SetupController make them: the address split on ":", then
``http://{ip}:{server_port}/...`` without a token.
"""

import json
import os
import socket
import struct
import sys
import tempfile
import textwrap
import unittest

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import deskrun_provider  # noqa: E402

SCREEN = (1024, 768)

# What OSWorld's PythonController puts before a pyautogui command.
PKGS_PREFIX = "import pyautogui; import time; pyautogui.FAILSAFE = False; {command}"


def split_address(addr):
    """The ports as OSWorld's DesktopEnv reads them from get_ip_address."""
    parts = addr.split(":")
    return parts[0], int(parts[1]), int(parts[2]), int(parts[3]), int(parts[4])


def refuses(host, port):
    try:
        socket.create_connection((host, port), timeout=2).close()
        return False
    except OSError:
        return True


class ProviderTest(unittest.TestCase):
    def setUp(self):
        self.provider = deskrun_provider.DeskrunProvider(screen_size=SCREEN)
        self.addCleanup(self.provider.stop_emulator, "deskrun")

    def controller_calls(self, ip, server_port):
        base = "http://%s:%d" % (ip, server_port)
        # PythonController.get_screenshot: the PNG's bytes.
        resp = requests.get(base + "/screenshot")
        self.assertEqual(resp.status_code, 200)
        png = resp.content
        self.assertEqual(png[:8], b"\x89PNG\r\n\x1a\n")
        width, height = struct.unpack(">II", png[16:24])
        self.assertEqual((width, height), SCREEN)

        # PythonController.execute_python_command: python -c with pyautogui.
        payload = json.dumps({"command": ["python", "-c", PKGS_PREFIX.format(command="pyautogui.moveTo(300, 200); print('moved')")], "shell": False})
        resp = requests.post(base + "/execute", headers={"Content-Type": "application/json"}, data=payload, timeout=90)
        self.assertEqual(resp.status_code, 200, resp.text)
        answer = resp.json()
        self.assertEqual(answer["status"], "success", answer)
        self.assertEqual(answer["returncode"], 0, answer)
        self.assertEqual(answer["output"].strip(), "moved")
        self.assertEqual(requests.get(base + "/cursor_position").json(), [300, 200])

        # SetupController's upload (multipart) and PythonController.get_file.
        resp = requests.post(base + "/setup/upload", data={"file_path": "~/provider-test.txt"},
                             files={"file_data": ("provider-test.txt", b"from the provider test")})
        self.assertEqual(resp.status_code, 200, resp.text)
        resp = requests.post(base + "/file", data={"file_path": "~/provider-test.txt"})
        self.assertEqual(resp.status_code, 200)
        self.assertEqual(resp.content, b"from the provider test")

        # PythonController.get_vm_screen_size and the accessibility tree.
        self.assertEqual(requests.post(base + "/screen_size").json(), {"width": SCREEN[0], "height": SCREEN[1]})
        self.assertIn("AT", requests.get(base + "/accessibility").json())

    def test_lifecycle(self):
        p = self.provider
        p.start_emulator("deskrun", True, "Ubuntu")
        first = p.session["id"]
        p.start_emulator("deskrun", True)  # OSWorld starts again after a revert
        self.assertEqual(p.session["id"], first)

        ip, server_port, chromium_port, vnc_port, vlc_port = split_address(p.get_ip_address("deskrun"))
        self.assertEqual(ip, "127.0.0.1")
        self.assertTrue(server_port and chromium_port and vlc_port)
        self.assertEqual(vnc_port, 0)
        self.controller_calls(ip, server_port)

        with self.assertRaises(NotImplementedError):
            p.save_state("deskrun", "init_state")

        # Revert: a fresh session; the old address is gone.
        self.assertEqual(p.revert_to_snapshot("deskrun", "init_state"), "deskrun")
        self.assertNotEqual(p.session["id"], first)
        self.assertTrue(refuses(ip, server_port))
        ip2, server_port2, _, _, _ = split_address(p.get_ip_address("deskrun"))
        resp = requests.post("http://%s:%d/file" % (ip2, server_port2), data={"file_path": "~/provider-test.txt"})
        self.assertEqual(resp.status_code, 404, "a reverted session must not keep the old files")
        self.controller_calls(ip2, server_port2)

        # Stop: the session is deleted and its address closed.
        second = p.session["id"]
        p.stop_emulator("deskrun")
        self.assertIsNone(p.session)
        resp = p.client.http.get(p.client.url + "/v1/sessions/" + second)
        self.assertEqual(resp.status_code, 404)
        self.assertTrue(refuses(ip2, server_port2))
        p.stop_emulator("deskrun")  # twice is harmless

    def test_bad_token(self):
        bad = deskrun_provider.DeskrunProvider(client=deskrun_provider.DeskrunClient(token="wrong-token"))
        if not os.environ.get("DESKRUN_TOKEN"):
            self.skipTest("the server has no token")
        with self.assertRaises(deskrun_provider.DeskrunError) as ctx:
            bad.start_emulator("deskrun", True)
        self.assertIn("401", str(ctx.exception))


class SessionRequestTest(unittest.TestCase):
    """The session the provider asks for, from the settings."""

    def request(self, screen_size=None, **env):
        saved = {k: os.environ.pop(k, None) for k in ("DESKRUN_SANDBOX_PROVIDER", "DESKRUN_SUDO", "DESKRUN_SCREEN", "DESKRUN_IMAGE", "DESKRUN_NETWORK")}
        os.environ.update(env)
        try:
            return deskrun_provider.session_request(screen_size)
        finally:
            for k in env:
                os.environ.pop(k, None)
            os.environ.update({k: v for k, v in saved.items() if v is not None})

    def test_defaults(self):
        # sudo on, as deskrun eval runs setups' sudo; OSWorld's screen.
        self.assertEqual(self.request(), {"osworld": True, "screen": {"width": 1920, "height": 1080}, "sudo": True})
        self.assertNotIn("sudo", self.request(DESKRUN_SUDO="0"))
        # Local sandboxes cannot grant sudo: off unless asked for.
        self.assertNotIn("sudo", self.request(DESKRUN_SANDBOX_PROVIDER="local"))
        self.assertTrue(self.request(DESKRUN_SANDBOX_PROVIDER="local", DESKRUN_SUDO="1")["sudo"])
        # DesktopEnv's screen size wins over DESKRUN_SCREEN.
        self.assertEqual(self.request((1280, 720), DESKRUN_SCREEN="800x600")["screen"], {"width": 1280, "height": 720})
        self.assertEqual(self.request(DESKRUN_SCREEN="800x600")["screen"], {"width": 800, "height": 600})


class RegisterTest(unittest.TestCase):
    """register() on a stand-in of OSWorld's desktop_env package layout."""

    def test_register(self):
        root = tempfile.mkdtemp()
        os.makedirs(os.path.join(root, "desktop_env", "providers"))
        files = {
            "desktop_env/__init__.py": "",
            "desktop_env/providers/__init__.py": textwrap.dedent("""\
                def create_vm_manager_and_provider(provider_name, region, use_proxy=False):
                    raise NotImplementedError(provider_name)
                """),
            "desktop_env/providers/base.py": textwrap.dedent("""\
                class Provider:
                    pass
                class VMManager:
                    pass
                """),
            "desktop_env/desktop_env.py": "from desktop_env.providers import create_vm_manager_and_provider\n",
        }
        for name, text in files.items():
            with open(os.path.join(root, name), "w") as f:
                f.write(text)
        sys.path.insert(0, root)
        try:
            deskrun_provider.register()
            deskrun_provider.register()
            import desktop_env.desktop_env as de
            import desktop_env.providers as providers

            manager, provider = de.create_vm_manager_and_provider("deskrun", None)
            self.assertIsInstance(provider, deskrun_provider.DeskrunProvider)
            self.assertEqual(manager.get_vm_path(os_type="Ubuntu", region=None), "deskrun")
            manager, provider = providers.create_vm_manager_and_provider("Deskrun ", None, False)
            self.assertIsInstance(provider, deskrun_provider.DeskrunProvider)
            with self.assertRaises(NotImplementedError):
                providers.create_vm_manager_and_provider("vmware", None)
            with self.assertRaises(NotImplementedError):
                providers.create_vm_manager_and_provider("docker", None)
            # An alias for scripts that take only OSWorld's own names.
            deskrun_provider.register("Docker")
            manager, provider = providers.create_vm_manager_and_provider("docker", None, use_proxy=False)
            self.assertIsInstance(provider, deskrun_provider.DeskrunProvider)
        finally:
            deskrun_provider._names.discard("docker")
            sys.path.remove(root)
            for m in [m for m in sys.modules if m == "desktop_env" or m.startswith("desktop_env.")]:
                del sys.modules[m]


if __name__ == "__main__":
    unittest.main(verbosity=2)
