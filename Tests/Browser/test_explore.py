"""`fathom explore` in a real browser (Debian's chromium, headless, driven by chromedriver through
Selenium) and over plain HTTP: the page shows the set, gestures move the view and the URL, the
settled image is the CLI's render of the location the page shows, and requests without the token,
for another host or from another origin are refused; a load test bounds the server's memory.

Run by Scripts/browser-test.sh (make test): FATHOM is the fathom executable; FATHOM_SCREENSHOTS,
when set, a folder for the screenshots Documentation/Explorer.md shows.
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from explore_server import FATHOM, Server, cli_render  # noqa: E402

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

SHOTS = os.environ.get("FATHOM_SCREENSHOTS")
WIDTH, HEIGHT = 1280, 720


class ExploreTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="fathom-explore-")
        cls.state_home = os.path.join(cls.folder, "state")
        cls.server = Server(cls.state_home)
        options = webdriver.ChromeOptions()
        options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        # FATHOM_HEADED=1: a window on the display (`xvfb-run` gives one without a screen), for
        # timings in a headed browser; the default is headless.
        headless = [] if os.environ.get("FATHOM_HEADED") == "1" else ["--headless=new"]
        for argument in headless + ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                    "--window-size=%d,%d" % (WIDTH, HEIGHT), "--hide-scrollbars"]:
            options.add_argument(argument)
        cls.driver = webdriver.Chrome(
            options=options, service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")))
        # The page's viewport itself WIDTH x HEIGHT, whatever the window's frame takes.
        cls.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                   {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.server.stop()

    # MARK: helpers

    def settled(self, after=0, timeout=120):
        """Waits until the page has settled a view newer than `after`; returns its number."""
        WebDriverWait(self.driver, timeout).until(
            lambda d: int(d.execute_script("return document.body.dataset.settled || 0")) > after)
        return int(self.driver.execute_script("return document.body.dataset.settled"))

    def view(self):
        return dict(urllib.parse.parse_qsl(urllib.parse.urlparse(self.driver.current_url).fragment))

    def shot(self, name):
        if SHOTS:
            os.makedirs(SHOTS, exist_ok=True)
            self.driver.save_screenshot(os.path.join(SHOTS, name + ".png"))

    def canvas_pixels(self):
        """The canvas's pixels as RGBA bytes, with its size."""
        data = self.driver.execute_script("""
            const c = document.getElementById('view');
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            let s = ''; for (let i = 0; i < d.length; i += 4 * 97) s += String.fromCharCode(d[i], d[i+1], d[i+2]);
            return [c.width, c.height, btoa(s)];""")
        import base64
        return data[0], data[1], base64.b64decode(data[2])

    def open_preset(self, name):
        """Opens the presets panel and clicks the preset `name` (its thumbnail)."""
        self.driver.execute_script("document.getElementById('presetPanel').open = true")
        button = next(b for b in self.driver.find_elements(By.CSS_SELECTOR, "#presets button")
                      if b.get_attribute("title").startswith(name + ":"))
        self.driver.execute_script("arguments[0].scrollIntoView()", button)
        button.click()

    # MARK: the tests, in order

    def test_1_page_shows_the_set(self):
        start = time.time()
        self.driver.get(self.server.url)
        self.settled()
        print("first settled image after %.2f s; the first image drawn %s ms after the navigation began" % (
            time.time() - start, self.driver.execute_script("return document.body.dataset.firstImage")))
        width, height, samples = self.canvas_pixels()
        self.assertEqual((width, height), (WIDTH, HEIGHT))
        colours = {samples[i:i + 3] for i in range(0, len(samples), 3)}
        self.assertGreater(len(colours), 50, "the view should show many colours")
        self.assertIn(b"\x00\x00\x00", colours, "the set's interior (black) should show")
        self.shot("explorer-home")

    def test_2_gestures_change_the_view_and_the_url(self):
        before = self.view()
        number = self.settled()
        canvas = self.driver.find_element(By.ID, "view")
        ActionChains(self.driver).move_to_element_with_offset(canvas, 0, 0).click_and_hold() \
            .move_by_offset(120, 60).move_by_offset(80, 40).release().perform()
        number = self.settled(number)
        dragged = self.view()
        self.assertNotEqual(dragged["re"], before["re"])
        self.assertNotEqual(dragged["im"], before["im"])
        self.assertEqual(dragged["r"], before["r"])
        # Thirty wheel steps in, at the Seahorse Valley's edge (through the URL, as a shared link
        # would); the first moved image's delay is reported.
        self.driver.get(self.server.url + "#re=-0.7436&im=0.1318&r=0.05")
        number = self.settled(number)
        dragged = self.view()
        # From the wheel event's own time stamp to the start of the frame after the one that
        # shows the moved image (an upper bound of when it reached the screen).
        self.driver.execute_script("""
            window.firstDraw = null;
            document.getElementById('view').addEventListener('wheel', (event) => {
              const t = event.timeStamp;
              requestAnimationFrame(() => requestAnimationFrame(() => {
                if (window.firstDraw === null) window.firstDraw = performance.now() - t;
              }));
            }, { once: true });""")
        canvas = self.driver.find_element(By.ID, "view")
        origin = ScrollOrigin.from_element(canvas, 40, 20)
        for _ in range(30):
            ActionChains(self.driver).scroll_from_origin(origin, 0, -120).perform()
        number = self.settled(number)
        zoomed = self.view()
        print("first moved image after a wheel step: %.1f ms" % self.driver.execute_script("return window.firstDraw"))
        self.assertLess(float(zoomed["r"]), float(dragged["r"]) / 100)
        self.shot("explorer-zoomed")
        # Back returns to the dragged view.
        self.driver.back()
        WebDriverWait(self.driver, 30).until(lambda d: self.view().get("r") == dragged["r"])
        self.settled(number)

    def test_3_the_settled_image_is_the_cli_render(self):
        number = self.settled()
        location = self.driver.execute_script("return window.fathomExplorer.locationFile()")
        width, height = self.driver.execute_script("return [innerWidth, innerHeight]")
        # As the page asks: the preview first (which computes the full view's references), then
        # the full view, which takes them from the client's cache.
        status, _, preview = self.server.render(location, width // 8, height // 8, view=number, full=(width, height))
        self.assertEqual(status, 200, preview)
        status, headers, png = self.server.render(location, width, height, view=number)
        self.assertEqual(status, 200, png)
        status, _, npy = self.server.render(location, width, height, fmt="npy", view=number)
        self.assertEqual(status, 200, npy)
        cli_png, cli_npy = cli_render(location, width, height, self.folder, "view")
        self.assertEqual(npy, cli_npy, "the explorer's field must be the CLI's for the same location and size")
        self.assertEqual(png, cli_png, "the explorer's PNG must be the CLI's")
        # A perturbation view (1e-30), asked for as the page asks: the full render takes the
        # references its preview computed, and its bytes are still the CLI's.
        deep = {"family": "mandelbrot", "center": ["-0.74364388703715870475219150611477", "0.13182590420531197049313205638514"],
                "radius": "1e-30", "maxIterations": 5000}
        status, _, _ = self.server.render(deep, 40, 22, client="deep", view=1, full=(320, 180))
        self.assertEqual(status, 200)
        status, headers, png = self.server.render(deep, 320, 180, client="deep", view=1)
        self.assertEqual((status, headers.get("X-Fathom-Path")), (200, "perturbation"))
        status, _, npy = self.server.render(deep, 320, 180, client="deep", view=1, fmt="npy")
        cli_png, cli_npy = cli_render(deep, 320, 180, self.folder, "deep")
        self.assertEqual(npy, cli_npy, "a deep view's field must be the CLI's")
        self.assertEqual(png, cli_png, "a deep view's PNG must be the CLI's")
        # The middle-out step as the page asks for it: the middle fifth of the full image alone,
        # a PNG of that size, with the preview's references.
        status, headers, png = self.server.request(
            "POST", "/api/render?width=320&height=180&window=128,72,64,36&client=deep&view=1", json.dumps(deep),
            {"X-Fathom-Token": self.server.token, "Content-Type": "application/json"})
        self.assertEqual((status, png[:8], png[16:24]), (200, b"\x89PNG\r\n\x1a\n", bytes([0, 0, 0, 64, 0, 0, 0, 36])))
        self.assertEqual(headers.get("X-Fathom-Reused"), "1")
        status, _, _ = self.server.request(
            "POST", "/api/render?width=320&height=180&window=300,72,64,36&client=deep&view=1", json.dumps(deep),
            {"X-Fathom-Token": self.server.token, "Content-Type": "application/json"})
        self.assertEqual(status, 400, "a window outside the image is refused")
        # A pan, then back: the view returned to takes its orbit from the client's cache, and
        # its bytes are still the CLI's.
        panned = dict(deep, center=["-0.74364388703715870475219150611467", deep["center"][1]])
        status, headers, _ = self.server.render(panned, 320, 180, client="deep", view=2)
        self.assertEqual((status, headers.get("X-Fathom-Reused")), (200, "0"))
        status, headers, npy = self.server.render(deep, 320, 180, client="deep", view=3, fmt="npy")
        self.assertEqual(status, 200)
        self.assertGreaterEqual(int(headers.get("X-Fathom-Reused")), 1, "the view returned to must reuse its orbit")
        self.assertEqual(npy, cli_npy, "a view returned to must still give the CLI's field")

    def test_3b_rotation_and_gradient(self):
        number = self.settled()
        gradient = "000764 206bcb edffff ffaa00 000200"
        self.driver.get(self.server.url + "#re=-0.7436&im=0.1318&r=0.05&rot=90&g=" + urllib.parse.quote(gradient))
        number = self.settled(number)
        location = self.driver.execute_script("return window.fathomExplorer.locationFile()")
        self.assertEqual(location["rotation"], 90)
        self.assertEqual(len(location["color"]["gradient"]["stops"]), 5)
        status, _, png = self.server.render(location, 160, 90, view=number)
        self.assertEqual(status, 200, png)
        cli_png, _ = cli_render(location, 160, 90, self.folder, "turned")
        self.assertEqual(png, cli_png, "a turned view with a gradient must be the CLI's render")
        # On a view turned by 90 degrees a drag to the right moves the center down the
        # imaginary axis, not along the real one.
        before = self.view()
        canvas = self.driver.find_element(By.ID, "view")
        ActionChains(self.driver).move_to_element_with_offset(canvas, 0, 0).click_and_hold() \
            .move_by_offset(100, 0).release().perform()
        number = self.settled(number)
        after = self.view()
        moved_im = float(before["im"]) - float(after["im"])
        self.assertGreater(moved_im, 0, "dragging right on a view turned by 90 degrees lowers im")
        self.assertEqual(after["re"], before["re"])
        # The ] key turns it by 15 degrees more, clockwise.
        canvas.send_keys("]")
        WebDriverWait(self.driver, 10).until(lambda d: self.view().get("rot") == "75")
        self.settled(number)
        self.shot("explorer-turned")
        # With the mouse alone: the box button, then a drag, zooms to the box; the Julia button,
        # then a click, opens the Julia set of the point clicked.
        self.driver.get(self.server.url + "#re=-0.7436&im=0.1318&r=0.05")
        number = self.settled(number)
        before = self.view()
        self.driver.find_element(By.ID, "boxMode").click()
        ActionChains(self.driver).move_to_element_with_offset(canvas, 0, 0).click_and_hold() \
            .move_by_offset(128, 72).release().perform()
        number = self.settled(number)
        boxed = self.view()
        self.assertAlmostEqual(float(boxed["r"]), float(before["r"]) / 10, delta=float(before["r"]) / 1000)
        self.driver.find_element(By.ID, "juliaMode").click()
        ActionChains(self.driver).move_to_element_with_offset(canvas, 0, 0).click().perform()
        self.settled(number)
        julia = self.view()
        self.assertEqual(julia["f"], "julia")
        self.assertAlmostEqual(float(julia["jr"]), float(boxed["re"]), delta=float(boxed["r"]) / 100)
        self.assertAlmostEqual(float(julia["ji"]), float(boxed["im"]), delta=float(boxed["r"]) / 100)

    def test_3d_the_middle_first(self):
        # A view of a few seconds (the e1000 preset, 1280x720): the middle of the full image
        # shows before the full image settles.
        number = self.settled()
        self.open_preset("e1000")
        number = self.settled(number)
        self.assertEqual(self.driver.execute_script("return document.body.dataset.middle"), str(number),
                         "the middle of the view must be drawn before the full image")
        self.assertIn("r=2e-1000", self.driver.current_url)

    def test_3c_auto_zoom(self):
        number = self.settled()
        self.driver.get(self.server.url + "#re=-0.7436&im=0.1318&r=0.05")
        number = self.settled(number)
        start = self.view()
        button = self.driver.find_element(By.ID, "autoZoom")
        button.click()
        begun = time.time()
        # It goes on zooming: 10x within a minute (about 6 s here), then the button stops it.
        WebDriverWait(self.driver, 60).until(
            lambda d: int(d.execute_script("return document.body.dataset.autozoom || 0")) >= 5
            and float(self.view().get("r", 1)) < float(start["r"]) / 10)
        self.assertEqual(button.text, "stop auto-zoom", self.driver.find_element(By.ID, "status").text)
        button.click()
        self.settled(number)
        zoomed = self.view()
        drawn = int(self.driver.execute_script("return document.body.dataset.autozoom"))
        print("auto-zoom: %d images in %.1f s, radius %s -> %s (%s)" % (
            drawn, time.time() - begun, start["r"], zoomed["r"],
            self.driver.find_element(By.ID, "status").text))
        self.assertLess(float(zoomed["r"]), float(start["r"]) / 10, "auto-zoom must zoom in")
        # Toward the boundary: the settled view shows the set's edge (many colours), not the
        # interior alone nor a flat outside.
        _, _, samples = self.canvas_pixels()
        colours = {samples[i:i + 3] for i in range(0, len(samples), 3)}
        self.assertGreater(len(colours), 50, "auto-zoom must stay at the set's boundary")
        self.shot("explorer-autozoom")

    def test_4_refusals(self):
        s = self.server
        good = {"X-Fathom-Token": s.token}
        self.assertEqual(s.request("GET", "/")[0], 403, "no token")
        self.assertEqual(s.request("GET", "/?token=" + "0" * 64)[0], 403, "a wrong token")
        self.assertEqual(s.request("GET", "/", headers=good)[0], 200)
        self.assertEqual(s.request("GET", "/", headers=good, host="evil.example:%d" % s.port)[0], 421, "DNS rebinding")
        self.assertEqual(s.request("GET", "/", headers=good, host="127.0.0.1:1")[0], 421, "another port")
        origin = dict(good, Origin="http://evil.example")
        self.assertEqual(s.request("GET", "/", headers=origin)[0], 403, "another origin")
        cross = dict(good, **{"Sec-Fetch-Site": "cross-site"})
        self.assertEqual(s.request("GET", "/", headers=cross)[0], 403, "a cross-site request")
        self.assertEqual(s.request("GET", "/../../etc/passwd", headers=good)[0], 404)
        self.assertEqual(s.request("DELETE", "/", headers=good)[0], 405)
        location = {"family": "mandelbrot", "center": ["-0.5", "0"], "radius": "1.5", "maxIterations": 100}
        self.assertEqual(s.render(location, 5000, 5000)[0], 400, "an image too large")
        self.assertEqual(s.render(dict(location, maxIterations=10 ** 9 + 1), 64, 36)[0], 400, "too many iterations")
        self.assertEqual(s.render(dict(location, radius="nan"), 64, 36)[0], 400, "a malformed radius")
        # Refused on the headers alone, before any body is read: a body over the limit, and any
        # body without the token.
        self.assertEqual(s.request("POST", "/api/render?width=64&height=36&client=x&view=0", headers=good,
                                   declared=5 << 20)[0], 413, "a body too large")
        self.assertEqual(s.request("POST", "/api/render?width=64&height=36&client=x&view=0",
                                   declared=1 << 20)[0], 403, "a body without the token")
        # Hostile bodies and numbers: one-line refusals, and the server goes on.
        json_headers = dict(good, **{"Content-Type": "application/json"})
        self.assertEqual(s.request("POST", "/api/keyframes", "[1,2]", json_headers)[0], 400)
        self.assertEqual(s.request("POST", "/api/jobs?width=4611686018427387904&height=2&supersample=2",
                                   json.dumps(location), json_headers)[0], 400)
        self.assertEqual(s.request("POST", "/api/state/journal", '[{"t": 1}]', json_headers)[0], 400)
        self.assertEqual(s.request("PUT", "/api/state", "{}", json_headers)[0], 405)
        self.assertIsNone(s.process.poll(), "the server should still run")
        status, headers, _ = s.request("GET", "/", headers=good)
        self.assertIn("default-src 'none'", headers.get("Content-Security-Policy", ""))

    def test_5_minibrot_and_a_bookmark_that_survives_a_restart(self):
        number = self.settled()
        self.driver.get(self.server.url + "#re=-0.7436&im=0.1318&r=0.05")
        number = self.settled(number)
        before = float(self.view()["r"])
        self.driver.find_element(By.ID, "minibrot").click()
        number = self.settled(number)
        found = self.view()
        self.assertLess(float(found["r"]), before / 2, "the minibrot's view is deeper")
        self.assertNotEqual(found["it"], "auto", "a minibrot's view takes its own iteration limit")
        self.driver.find_element(By.ID, "bookmark").click()
        path = os.path.join(self.state_home, "fathom", "explore.json")
        def bookmarks():
            with open(path) as f:
                return json.load(f)["bookmarks"]
        WebDriverWait(self.driver, 10).until(lambda d: os.path.exists(path) and bookmarks())
        with open(path) as f:
            kept = json.load(f)
        self.assertIn("r=" + found["r"], kept["bookmarks"][0]["view"])
        # Its thumbnail: the view as shown, a 160x90 JPEG, kept as a file of its own beside the
        # state and served by name only.
        thumbnail = kept["bookmarks"][0]["thumbnail"]
        self.assertRegex(thumbnail, r"^[0-9A-F-]{36}\.jpg$")
        status, headers, jpeg = self.server.request(
            "GET", "/api/thumbnail?name=" + thumbnail, headers={"X-Fathom-Token": self.server.token})
        self.assertEqual((status, headers.get("Content-Type"), jpeg[:3]), (200, "image/jpeg", b"\xff\xd8\xff"))
        with open(os.path.join(self.state_home, "fathom", "thumbnails", thumbnail), "rb") as f:
            self.assertEqual(f.read(), jpeg)
        for name in ("../explore.json", "explore.json", thumbnail[:-4] + ".png"):
            status, _, _ = self.server.request(
                "GET", "/api/thumbnail?name=" + urllib.parse.quote(name), headers={"X-Fathom-Token": self.server.token})
            self.assertEqual(status, 404, name)
        # A thumbnail that is not a JPEG data URL is refused.
        status, _, _ = self.server.request(
            "POST", "/api/state/bookmark",
            json.dumps({"name": "x", "view": "#r=1", "thumbnail": "data:text/html;base64,PHNjcmlwdD4="}),
            {"X-Fathom-Token": self.server.token, "Content-Type": "application/json"})
        self.assertEqual(status, 400)
        # Another page (another tab) adds a bookmark of its own: both are kept.
        other = {"name": "other tab", "view": "#f=mandelbrot&re=0&im=0&r=2", "saved": "2026-12-07T00:00:00Z"}
        status, _, _ = self.server.request("POST", "/api/state/bookmark", json.dumps(other),
                                           {"X-Fathom-Token": self.server.token, "Content-Type": "application/json"})
        self.assertEqual(status, 204)
        with open(path) as f:
            self.assertEqual([b["name"] for b in json.load(f)["bookmarks"]][1:], ["other tab"])
        # A new server on the same state folder: the page without a view in its URL opens the
        # last one, and the bookmarks are there.
        self.__class__.server.stop()
        self.__class__.server = Server(self.state_home)
        self.driver.get(self.server.url)
        self.settled()
        self.assertEqual(self.view()["r"], found["r"])
        names = self.driver.execute_script("return window.fathomExplorer.kept.bookmarks.map(b => b.view)")
        self.assertEqual(len(names), 2)
        self.assertIn("r=" + found["r"], names[0])
        # The strip shows both, newest first, the page's own with its thumbnail (160x90).
        sizes = self.driver.execute_script(
            "return [...document.querySelectorAll('#bookmarks button')].map(b => { const i = b.querySelector('img');"
            " return i ? [i.naturalWidth, i.naturalHeight] : null; })")
        self.assertEqual(sizes, [None, [160, 90]])
        self.shot("explorer-minibrot")
        # Clicking a bookmark opens its view.
        number = self.settled()
        self.driver.find_elements(By.CSS_SELECTOR, "#bookmarks button")[0].click()
        self.settled(number)
        self.assertEqual(self.view()["r"], "2")
        self.driver.find_elements(By.CSS_SELECTOR, "#bookmarks button")[1].click()
        WebDriverWait(self.driver, 30).until(lambda d: self.view().get("r") == found["r"])

    def test_6_presets_import_and_export(self):
        number = self.settled()
        # Every preset in the panel with its thumbnail (a 96x54 PNG); a click opens one.
        sizes = self.driver.execute_script(
            "return [...document.querySelectorAll('#presets button')].map(b => { const i = b.querySelector('img');"
            " return [b.title.split(':')[0], i ? i.naturalWidth : 0, i ? i.naturalHeight : 0]; })")
        names = subprocess.run([FATHOM, "presets"], capture_output=True, text=True, check=True).stdout.split("\n")[1:]
        self.assertEqual([s[0] for s in sizes], [line.split()[0] for line in names if line.strip()])
        self.assertTrue(all(s[1:] == [96, 54] for s in sizes), sizes)
        self.open_preset("seahorse")
        number = self.settled(number)
        self.assertEqual(self.view()["re"], "-0.746223962861")
        self.shot("explorer-presets")
        # Export as .kfr through the server, then drop that file on the page: the same view.
        location = self.driver.execute_script("return window.fathomExplorer.locationFile()")
        status, headers, kfr = self.server.request(
            "POST", "/api/export?format=kfr", json.dumps(location),
            {"X-Fathom-Token": self.server.token, "Content-Type": "application/json"})
        self.assertEqual(status, 200, kfr)
        self.assertIn("attachment", headers.get("Content-Disposition", ""))
        self.assertTrue(kfr.startswith(b"Re: "), kfr[:40])
        self.driver.get(self.server.url + "#re=0&im=0&r=2")
        number = self.settled(number)
        self.driver.execute_script(
            "window.fathomExplorer.openFile(new File([arguments[0]], 'view.kfr'))", kfr.decode())
        number = self.settled(number)
        opened = self.view()
        self.assertEqual(opened["re"], "-0.746223962861")
        self.assertEqual(float(opened["r"]), float(location["radius"]))
        # A file that is not a location: the reader's one-line error in the status line.
        self.driver.execute_script("window.fathomExplorer.openFile(new File(['not a view'], 'bad.json'))")
        WebDriverWait(self.driver, 10).until(
            lambda d: "bad.json" in d.find_element(By.ID, "status").text)

    def test_7_a_full_size_render_goes_on_when_the_tab_closes(self):
        self.settled()
        self.driver.execute_script("""
            document.getElementById('jobWidth').value = 320; document.getElementById('jobHeight').value = 180;
            document.getElementById('jobSamples').value = '2';
            document.getElementById('jobDeep').checked = true; document.getElementById('jobNPY').checked = true;""")
        location = self.driver.execute_script("return window.fathomExplorer.locationFile()")
        self.driver.find_element(By.ID, "jobStart").click()
        WebDriverWait(self.driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#jobs .job"))
        self.driver.get("about:blank")  # the tab's page is gone; the render is the server's
        deadline, job = time.time() + 120, None
        while time.time() < deadline:
            status, _, body = self.server.request("GET", "/api/jobs", headers={"X-Fathom-Token": self.server.token})
            job = json.loads(body)[-1]
            if job["state"] not in ("queued", "running"):
                break
            time.sleep(0.2)
        self.assertEqual(job["state"], "done", job)
        files = {}
        for kind in ("png", "npy"):
            status, headers, files[kind] = self.server.request(
                "GET", "/api/jobs/file?id=%d&kind=%s" % (job["id"], kind), headers={"X-Fathom-Token": self.server.token})
            self.assertEqual(status, 200, files[kind][:200])
        cli_png, cli_npy = cli_render(location, 320, 180, self.folder, "job",
                                      ["--supersample", "2", "--bit-depth", "16"])
        self.assertEqual(files["npy"], cli_npy)
        self.assertEqual(files["png"], cli_png, "the job's PNG must be the CLI's")
        self.driver.get(self.server.url)
        WebDriverWait(self.driver, 10).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, "#jobs .job[data-state=done] a"))

    def test_8_the_journal_replays_and_becomes_keyframes(self):
        self.driver.get(self.server.url)
        number = self.settled()
        canvas = self.driver.find_element(By.ID, "view")
        for dx in (60, -30):
            ActionChains(self.driver).move_to_element(canvas).click_and_hold().move_by_offset(dx, 10).release().perform()
            number = self.settled(number)
        journal = self.driver.execute_script("return window.fathomExplorer.kept.journal")
        self.assertGreaterEqual(len(journal), 3, "every gesture is in the journal")
        # The replay of the page's last 12 views (the earlier tests' views make dozens).
        journal = self.driver.execute_script(
            "const kept = window.fathomExplorer.kept; kept.journal = kept.journal.slice(-12); return kept.journal")
        start = time.time()
        self.driver.find_element(By.ID, "replay").click()
        WebDriverWait(self.driver, 60).until(lambda d: d.execute_script("return document.body.dataset.replayed"))
        print("replayed %d views in %.1f s" % (len(journal), time.time() - start))
        self.assertLessEqual(time.time() - start, 35)
        self.assertEqual(self.view()["re"], dict(urllib.parse.parse_qsl(journal[-1]["view"][1:]))["re"])
        self.driver.find_element(By.ID, "keyframes").click()
        WebDriverWait(self.driver, 20).until(lambda d: d.execute_script("return document.body.dataset.keyframes"))
        folder = self.driver.execute_script("return document.body.dataset.keyframes")
        names = sorted(os.listdir(folder))
        self.assertEqual(len(names), len(self.driver.execute_script("return window.fathomExplorer.kept.journal")))
        with open(os.path.join(folder, names[-1])) as f:
            self.assertIn("center", json.load(f))
        # The journal is kept with the state.
        path = os.path.join(self.state_home, "fathom", "explore.json")
        def kept_journal():
            with open(path) as f:
                return json.load(f).get("journal", [])
        WebDriverWait(self.driver, 10).until(lambda d: len(kept_journal()) >= len(journal))

    def test_8a_the_journal_becomes_a_video(self):
        number = self.settled()
        # The journal's last three views, at 64x36: 2 pairs of 30 frames and the last view.
        files = self.driver.execute_script("""
            const kept = window.fathomExplorer.kept;
            kept.journal = kept.journal.slice(-3);
            document.getElementById('jobWidth').value = 64; document.getElementById('jobHeight').value = 36;
            return window.fathomExplorer.journalFiles();""")
        self.assertEqual(len(files), 3)
        self.driver.find_element(By.ID, "video").click()
        deadline, job = time.time() + 180, None
        while time.time() < deadline:
            _, _, body = self.server.request("GET", "/api/jobs", headers={"X-Fathom-Token": self.server.token})
            job = json.loads(body)[-1]
            if "frames" in job and job["state"] not in ("queued", "running"):
                break
            time.sleep(0.3)
        self.assertEqual((job["state"], job["frames"]), ("done", 61), job)
        status, headers, mp4 = self.server.request(
            "GET", "/api/jobs/file?id=%d&kind=mp4" % job["id"], headers={"X-Fathom-Token": self.server.token})
        self.assertEqual((status, headers.get("Content-Type")), (200, "video/mp4"))
        self.assertEqual(mp4[4:8], b"ftyp")
        counted = subprocess.run(
            ["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
             "stream=nb_read_frames", "-of", "csv=p=0", job["video"]], capture_output=True, text=True, check=True)
        self.assertEqual(counted.stdout.strip(), "61")
        # Its frames are `fathom sequence`'s between the same keyframes, byte for byte.
        keys = []
        for k, file in enumerate(files):
            keys.append(os.path.join(self.folder, "key-%d.json" % k))
            with open(keys[-1], "w") as f:
                json.dump(file, f)
        cli_frames = os.path.join(self.folder, "cli-frames")
        subprocess.run([FATHOM, "sequence", "--per-segment", "30", "--size", "64x36", "--output-dir", cli_frames,
                        "--quiet"] + keys, check=True)
        frames = job["video"][:-len(".mp4")] + "-frames"
        names = sorted(os.listdir(frames))
        self.assertEqual(names, sorted(os.listdir(cli_frames)))
        for name in names:
            with open(os.path.join(frames, name), "rb") as a, open(os.path.join(cli_frames, name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name)

    def test_8b_from_home_to_1e_100_by_gestures_and_minibrots(self):
        """Issue 46's check: from the home view to beyond 1e-100 with the wheel, a double click and
        "zoom to minibrot" alone, each level as `fathom find --depth` descends (zoom half way in
        log radius, then the deeper minibrot on that ring), at 320x180; the final view's field is
        the CLI's. Which way to point on the ring the test finds as a user would by looking: by
        asking the server (the same search the page makes) before the gesture."""
        from decimal import Decimal, getcontext
        getcontext().prec = 300
        w, h = 320, 180
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": w, "height": h, "deviceScaleFactor": 1, "mobile": False})
        try:
            start = time.time()
            self.driver.get(self.server.url + "#f=mandelbrot&re=-0.5&im=0&r=1.5&it=auto")
            number = self.settled()
            canvas = self.driver.find_element(By.ID, "view")
            canvas.send_keys("h")  # the HUD off: at 320x180 it would cover the view

            def wheel_at(dx, dy, factor):
                ActionChains(self.driver).scroll_from_origin(
                    ScrollOrigin.from_element(canvas, dx, dy), 0, int(round(math.log(factor) / 0.0015))).perform()

            # Into the Seahorse Valley: the wheel at its point, a double click to centre it.
            sx, sy = (-0.746223962861 + 0.5) * h / 3, 0.0959468433527 * h / 3
            wheel_at(int(round(sx)), int(round(sy)), 3.725e-3 / 1.5)
            number = self.settled(number)
            ActionChains(self.driver).move_to_element_with_offset(canvas, int(round(sx)), int(round(sy))) \
                .double_click().perform()
            number = self.settled(number)
            radius = Decimal(self.view()["r"])
            self.driver.execute_script("document.getElementById('minibrot').click()")
            number = self.settled(number)
            period = int(self.driver.execute_script("return document.body.dataset.minibrot"))
            levels = [period]
            while Decimal(self.view()["r"]) > Decimal("1e-100") and len(levels) < 20:
                v = self.view()
                size = Decimal(v["r"]) / 4
                ring = (radius * size * 4).sqrt()
                # The wheel at the nucleus (the center): from the minibrot's view to the ring's radius.
                wheel_at(0, 0, float(ring / Decimal(v["r"])))
                number = self.settled(number)
                ring = Decimal(self.view()["r"])
                chosen = None
                for k in range(16):
                    a = 2 * math.pi * k / 16
                    probe = {"family": "mandelbrot", "radius": str(ring / 2), "maxIterations": int(v["it"]),
                             "center": [str(Decimal(v["re"]) + ring * Decimal(math.cos(a))),
                                        str(Decimal(v["im"]) + ring * Decimal(math.sin(a)))]}
                    status, headers, body = self.server.request(
                        "POST", "/api/minibrot?client=probe&view=%d" % (len(levels) * 100 + k), json.dumps(probe),
                        {"X-Fathom-Token": self.server.token, "Content-Type": "application/json"})
                    if status == 200 and int(headers["X-Fathom-Period"]) > period \
                            and Decimal(json.loads(body)["radius"]) / 4 < size / 100:
                        chosen = a
                        break
                self.assertIsNotNone(chosen, "a deeper minibrot on the ring at level %d" % len(levels))
                # "m" with the cursor on the ring in that direction.
                ActionChains(self.driver).move_to_element_with_offset(
                    canvas, int(round(h / 2 * math.cos(chosen))), int(round(-h / 2 * math.sin(chosen)))) \
                    .send_keys("m").perform()
                number = self.settled(number)
                found = int(self.driver.execute_script("return document.body.dataset.minibrot"))
                self.assertGreater(found, period, "the page found the deeper minibrot")
                period, radius = found, ring
                levels.append(period)
            canvas.send_keys("h")
            final = self.view()
            print("1e-100 by gestures: periods %s, radius %s, %.1f s" % (levels, final["r"], time.time() - start))
            self.assertLess(Decimal(final["r"]), Decimal("1e-100"))
            location = self.driver.execute_script("return window.fathomExplorer.locationFile()")
            status, _, _ = self.server.render(location, w // 8, h // 8, client="deepest", view=1, full=(w, h))
            self.assertEqual(status, 200)
            status, _, npy = self.server.render(location, w, h, client="deepest", view=1, fmt="npy")
            _, cli_npy = cli_render(location, w, h, self.folder, "deepest")
            self.assertEqual(npy, cli_npy, "the deepest view's field must be the CLI's")
            self.shot("explorer-1e-100")
        finally:
            self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                        {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})

    def test_9_load(self):
        """Many clients at once for a bounded time: every answer a render or a refusal, memory bounded."""
        s, errors, answers = self.server, [], []
        deadline = time.time() + 8

        def client(k):
            view = 0
            while time.time() < deadline:
                view += 1
                location = {"family": "mandelbrot", "center": ["-0.75", str(0.01 * k)], "radius": "0.5",
                            "maxIterations": 200 + view}
                try:
                    status, headers, body = s.render(location, 160, 90, client="load%d" % k, view=view)
                except OSError as error:
                    answers.append("refused connection")
                    continue
                answers.append(status)
                if status == 200 and not body.startswith(b"\x89PNG"):
                    errors.append("not a PNG")
                elif status not in (200, 409, 503):
                    errors.append("status %d: %r" % (status, body[:200]))

        threads = [threading.Thread(target=client, args=(k,)) for k in range(24)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        peak = s.peak_memory_kib()
        print("load: %d answers (%d rendered), server peak memory %d MiB"
              % (len(answers), answers.count(200), peak >> 10))
        self.assertEqual(errors, [])
        self.assertGreater(answers.count(200), 10)
        self.assertLess(peak, 1 << 20, "the server's memory should stay under 1 GiB")
        self.assertIsNone(s.process.poll(), "the server should still run")


if __name__ == "__main__":
    unittest.main(verbosity=2)
