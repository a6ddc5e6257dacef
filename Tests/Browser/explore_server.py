"""`fathom explore` on a free port, and `fathom render` of a location, for the browser test
(test_explore.py) and Scripts/explore-timing.py: plain Python, no browser driver. FATHOM names the
fathom executable (default .build/release/fathom)."""
import http.client
import json
import os
import re
import socket
import subprocess
import urllib.parse

FATHOM = os.environ.get("FATHOM", ".build/release/fathom")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`fathom explore` on a free port; its URL and token from its first line."""

    def __init__(self, state_home, arguments=()):
        self.port = free_port()
        # The state folder is the test's own: never the user's.
        environment = dict(os.environ, XDG_STATE_HOME=state_home, XDG_DATA_HOME=state_home + "-data")
        self.process = subprocess.Popen(
            [FATHOM, "explore", "--port", str(self.port)] + list(arguments), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=environment)
        line = self.process.stdout.readline()
        match = re.search(r"(http://\S+)", line)
        if not match:
            raise RuntimeError("fathom explore printed no URL: %r %r" % (line, self.process.stderr.read()))
        self.url = match.group(1)
        self.token = urllib.parse.parse_qs(urllib.parse.urlparse(self.url).query)["token"][0]

    def request(self, method, path, body=None, headers=None, host=None, declared=None):
        """One request; `declared`: a Content-Length to announce while sending no body (the
        server must answer on the headers alone)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=600)
        connection.putrequest(method, path, skip_host=True)
        connection.putheader("Host", host or "127.0.0.1:%d" % self.port)
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        data = body.encode() if isinstance(body, str) else body
        connection.putheader("Content-Length", str(declared if declared is not None else len(data or b"")))
        connection.endheaders(None if declared is not None else data)
        response = connection.getresponse()
        result = (response.status, dict(response.getheaders()), response.read())
        connection.close()
        return result

    def render(self, location, width, height, fmt="png", client="test", view=0, full=None):
        extra = "&full=%dx%d" % full if full else ""
        return self.request(
            "POST", "/api/render?width=%d&height=%d%s&client=%s&view=%d&format=%s"
            % (width, height, extra, client, view, fmt),
            json.dumps(location), {"X-Fathom-Token": self.token, "Content-Type": "application/json"})

    def peak_memory_kib(self):
        with open("/proc/%d/status" % self.process.pid) as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return 0

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()
        self.process.stderr.close()


def cli_render(location, width, height, folder, name, extra=()):
    path = os.path.join(folder, name + ".json")
    with open(path, "w") as f:
        json.dump(location, f)
    png, npy = os.path.join(folder, name + ".png"), os.path.join(folder, name + ".npy")
    subprocess.run([FATHOM, "render", "--location", path, "--size", "%dx%d" % (width, height), "--output", png,
                    "--npy", npy, "--quiet"] + list(extra), check=True)
    with open(png, "rb") as a, open(npy, "rb") as b:
        return a.read(), b.read()
