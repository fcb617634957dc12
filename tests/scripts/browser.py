#!/usr/bin/python3
"""browser.py - drive headless Chromium (selenium) for t4700: what a person
sees of our flame graph and of our speedscope export, as key=value lines.

  browser.py probe DIR                 Chromium starts (else: why not, exit 1)
  browser.py flame DIR SVG NAME TERM PNG [WIDTHxHEIGHT]
      open SVG in a window of that size (1200x900), click the widest
      frame called NAME, search TERM, reset the zoom, and screenshot the
      graph (the search's colours left on) to PNG
  browser.py diff DIR SVG NAME PNG
      open the differential flame graph SVG, list every frame (name, tip,
      fill, width in px), click the widest frame called NAME and list
      them again, click Reset zoom, list them, and screenshot it to PNG
  browser.py frames DIR SVG
      open SVG and print how many XML parse errors Chromium shows
      (parse_errors=N, then each), else each frame's tooltip (tip=JSON)
  browser.py speedscope DIR INDEX JSON
      open speedscope's page INDEX with JSON loaded (as its command line
      tool does: #localProfilePath= a script that hands it the file), in
      the sandwich view, and print its table

DIR is a fresh directory for Chromium's profile.  Chromium runs as root
only without its sandbox; nothing is fetched from the network."""

import base64
import json
import os
import sys

WIDTH, HEIGHT = 1200, 900
WAIT = 60  # seconds at most for a page to show what it loads (a bound, not a timing)


def chromium(profile_dir, width=WIDTH, height=HEIGHT):
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = "/usr/bin/chromium"
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--user-data-dir=" + os.path.join(profile_dir, "chromium"),
        "--window-size=%d,%d" % (width, height),
    ):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    # the page itself width x height, whatever the window's frame takes
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    return driver


def probe(profile_dir):
    try:
        driver = chromium(profile_dir)
    except Exception as e:  # the reason goes to the skip line
        print("chromium cannot run here: %s" % str(e).strip().splitlines()[0])
        return 1
    driver.quit()
    return 0


FRAMES_JS = """
return Array.prototype.map.call(document.querySelectorAll('g[data-x]'), function (g) {
    var r = g.querySelector('rect').getBoundingClientRect();
    return {tip: g.querySelector('title').textContent,
            fill: getComputedStyle(g.querySelector('rect')).fill,
            x: parseFloat(g.getAttribute('data-x')),
            w: parseFloat(g.getAttribute('data-w')), d: parseInt(g.getAttribute('data-d')),
            shown: g.style.display !== 'none', left: r.left, width: r.width,
            top: r.top, bottom: r.bottom};
});
"""


def frames_of(driver):
    return driver.execute_script(FRAMES_JS)


def name_of(frame):
    return frame["tip"].rsplit(" (", 1)[0]


def flame(profile_dir, svg, name, term, png, size="%dx%d" % (WIDTH, HEIGHT)):
    from selenium.webdriver.common.by import By

    driver = chromium(profile_dir, *(int(v) for v in size.split("x")))
    try:
        driver.get("file://" + os.path.abspath(svg))
        view = driver.execute_script(
            "var r = document.documentElement.getBoundingClientRect();"
            "return [window.innerWidth, window.innerHeight, r.width, r.height];"
        )
        print("viewport=%dx%d" % (view[0], view[1]))
        print("svg_width=%.1f" % view[2])
        print("svg_height=%.1f" % view[3])
        frames = frames_of(driver)
        root = [f for f in frames if f["d"] == 0]
        print("root_top=%.1f" % min(f["top"] for f in root))
        print("root_bottom=%.1f" % max(f["bottom"] for f in root))
        gw = view[2] - 20
        print("graph_width=%.1f" % gw)

        target = max((f for f in frames if name_of(f) == name), key=lambda f: f["w"])
        print("clicked_share=%.6f" % target["w"])
        print("clicked_width_before=%.1f" % target["width"])
        groups = driver.find_elements(By.CSS_SELECTOR, "g[data-x]")
        index = [i for i, f in enumerate(frames) if f is target][0]
        groups[index].find_element(By.TAG_NAME, "rect").click()
        after = frames_of(driver)
        clicked = after[index]
        print("clicked_width=%.1f" % clicked["width"])
        print("clicked_left=%.1f" % clicked["left"])
        inside = [
            f
            for f in after
            if f["d"] > target["d"]
            and f["x"] >= target["x"] - 1e-9
            and f["x"] + f["w"] <= target["x"] + target["w"] + 1e-9
        ]
        outside = [
            f
            for f in after
            if f["shown"] and f["d"] >= target["d"] and f not in inside and f is not clicked
        ]
        print("shown_outside=%d" % len(outside))
        print("hidden=%d" % sum(1 for f in after if not f["shown"]))
        if inside:
            child = max((f for f in inside if f["d"] == target["d"] + 1), key=lambda f: f["w"])
            print("child=%s" % name_of(child))
            print("child_width=%.1f" % child["width"])
            print("child_width_expected=%.1f" % (child["w"] / target["w"] * gw - 0.5))

        driver.find_element(By.ID, "search").click()
        alert = driver.switch_to.alert
        alert.send_keys(term)
        alert.accept()
        print("matched=%s" % driver.find_element(By.ID, "matched").text)
        purple = driver.execute_script(
            "return document.querySelectorAll('rect[fill=\"rgb(230,0,230)\"]').length"
        )
        print("coloured=%d" % purple)

        driver.find_element(By.ID, "unzoom").click()
        reset = frames_of(driver)[index]
        print("reset_width=%.1f" % reset["width"])
        print("reset_hidden=%d" % sum(1 for f in frames_of(driver) if not f["shown"]))
        driver.execute_script("window.scrollTo(0, 0)")
        driver.find_element(By.CSS_SELECTOR, "svg").screenshot(png)
    finally:
        driver.quit()
    return 0


def list_frames(driver, what):
    for f in frames_of(driver):
        if f["shown"]:
            print("%s=%s\t%s\t%s\t%.1f" % (what, name_of(f), f["tip"], f["fill"], f["width"]))


def diff(profile_dir, svg, name, png):
    from selenium.webdriver.common.by import By

    driver = chromium(profile_dir)
    try:
        driver.get("file://" + os.path.abspath(svg))
        width = driver.execute_script(
            "return document.documentElement.getBoundingClientRect().width"
        )
        print("graph_width=%.1f" % (width - 20))
        list_frames(driver, "frame")
        frames = frames_of(driver)
        target = max((f for f in frames if name_of(f) == name), key=lambda f: f["w"])
        index = frames.index(target)
        driver.find_elements(By.CSS_SELECTOR, "g[data-x]")[index].find_element(
            By.TAG_NAME, "rect"
        ).click()
        list_frames(driver, "zoomed")
        driver.find_element(By.ID, "unzoom").click()
        list_frames(driver, "reset")
        driver.execute_script("window.scrollTo(0, 0)")
        driver.find_element(By.CSS_SELECTOR, "svg").screenshot(png)
    finally:
        driver.quit()
    return 0


def frames(profile_dir, svg):
    driver = chromium(profile_dir)
    try:
        driver.get("file://" + os.path.abspath(svg))
        errors = driver.execute_script(
            "return Array.prototype.map.call(document.getElementsByTagName('parsererror'),"
            " function (e) { return e.textContent; })"
        )
        print("parse_errors=%d" % len(errors))
        for e in errors:
            print("parse_error=%s" % json.dumps(e))
        if errors:  # Chromium shows its error page, not the graph
            return 0
        for f in frames_of(driver):
            print("tip=%s" % json.dumps(f["tip"]))
    finally:
        driver.quit()
    return 0


def speedscope(profile_dir, index, profile):
    from selenium.webdriver.support.ui import WebDriverWait

    with open(profile, "rb") as f:
        data = base64.b64encode(f.read()).decode("ascii")
    loader = os.path.join(profile_dir, "profile.js")
    with open(loader, "w") as f:
        f.write(
            "speedscope.loadFileFromBase64(%s, %s)\n"
            % (json.dumps(os.path.basename(profile)), json.dumps(data))
        )
    driver = chromium(profile_dir)
    try:
        driver.get(
            "file://%s#localProfilePath=%s&view=sandwich"
            % (os.path.abspath(index), os.path.abspath(loader))
        )
        body = lambda d: d.find_element("tag name", "body").text  # noqa: E731
        WebDriverWait(driver, WAIT).until(lambda d: "Symbol Name" in body(d))
        print("title=%s" % driver.title)
        lines = body(driver).splitlines()
        at = lines.index("Total Self Symbol Name")
        print("profile=%s" % lines[at - 2])
        rows = lines[at + 1:]
        for i in range(0, len(rows) - 2, 3):
            print("row=%s\t%s\t%s" % (rows[i], rows[i + 1], rows[i + 2]))
    finally:
        driver.quit()
    return 0


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "probe":
        return probe(*args)
    if cmd == "flame":
        return flame(*args)
    if cmd == "diff":
        return diff(*args)
    if cmd == "frames":
        return frames(*args)
    if cmd == "speedscope":
        return speedscope(*args)
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
