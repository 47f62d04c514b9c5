"""Browser test of the preview page (GET /) against a live demo server.

Run it with scripts/browser-test.sh, which starts `sectional serve --memory` (the demo config, with
its 1,200 seeded people and the cross-origin test's origin in server.corsOrigins) and sets
SECTIONAL_BASE_URL. Headless Chromium + chromedriver from Debian.
The tests share one browser (conftest.py) and run in file order; each opens the page afresh.
"""
import json
import os
import re
import urllib.error
import urllib.request
import uuid

import pytest
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

BASE = os.environ["SECTIONAL_BASE_URL"].rstrip("/")  # set by scripts/browser-test.sh
ARTIFACTS = os.environ.get("SECTIONAL_ARTIFACTS", os.path.join(os.path.dirname(__file__), "..", "..", "artifacts"))
TOKEN = os.environ.get("SECTIONAL_API_TOKEN")
LIST = "contacts"
PAGE = 50
WAIT = 30  # deadline (seconds) for anything the page must do by itself; generous for a loaded machine

# 404s the page provokes on purpose: Chromium logs every failed fetch as SEVERE. Only the
# tag-not-found look-up is expected.
EXPECTED_404 = re.compile(r"/v1/lists/[^ ]+/tags/[^ ]* .*status of 404")


# ---------- helpers ----------

def api(method, path, body=None):
    """Calls the API directly; returns (status, parsed JSON or None)."""
    headers = {"Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if TOKEN and method in ("PUT", "DELETE", "POST"):
        headers["Authorization"] = f"Bearer {TOKEN}"
    request = urllib.request.Request(BASE + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
            return response.status, (json.loads(text) if text else None)
    except urllib.error.HTTPError as error:
        text = error.read()
        return error.code, (json.loads(text) if text else None)


def get(path):
    status, body = api("GET", path)
    assert status == 200, f"GET {path} answered {status}: {body}"
    return body


def wait(driver, condition, timeout=WAIT, message=""):
    # An element found in one poll may be replaced by the page's next render before it is read:
    # that poll does not count, the next one looks again.
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.1,
                             ignored_exceptions=(StaleElementReferenceException,)).until(condition, message)
    except TimeoutException as error:
        raise AssertionError(f"{message} (page: {page_state(driver)})") from error


def page_state(driver):
    """What the page says about itself, for failure messages."""
    return driver.execute_script(
        "const t = (id) => (document.getElementById(id) || {}).textContent;"
        "return {status: t('status'), message: t('message'),"
        " live: (document.getElementById('live') || {className: ''}).className}")


def view_id(driver):
    view = driver.execute_script(f"return localStorage.getItem('sectional.view.{LIST}')")
    assert view, "the page keeps no view id in localStorage"
    return view


def drawn_rows(driver, section=None):
    scope = f'.section[data-index="{section}"] ' if section is not None else ""
    return driver.find_elements(By.CSS_SELECTOR, f"{scope}.row[data-row-id]")


def drawn_ids(driver):
    return driver.execute_script(
        "return [...document.querySelectorAll('.row[data-row-id]')].map(e => e.dataset.rowId)")


def row_info(driver, selector):
    """One drawn row read in a single step (the page may redraw between two WebDriver calls)."""
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); if (!e) return null;"
        "const text = (c) => { const x = e.querySelector('.' + c); return x ? x.textContent : null; };"
        "const r = e.getBoundingClientRect();"
        "return {rowId: e.dataset.rowId, id: e.id, indexPath: e.dataset.indexPath, title: text('rtitle'),"
        " subtitle: text('rsub'), detail: text('detail'), badge: text('badge'), minHeight: e.style.minHeight,"
        " highlighted: e.classList.contains('hl'), inView: r.top >= 0 && r.bottom <= innerHeight}", selector)


def header(driver, index):
    return driver.find_element(By.CSS_SELECTOR, f'.section[data-index="{index}"] .header')


def click_header(driver, index):
    """Clicks a section header, centred first so the sticky top bar cannot cover it."""
    element = header(driver, index)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def open_list(driver, name=LIST):
    """Loads the page afresh on a list and waits until its first page is drawn."""
    driver.get("about:blank")  # from /#contacts, getting /#contacts again would only fire hashchange
    driver.get(f"{BASE}/#{name}")
    wait(driver, lambda d: d.execute_script(
        "const t = document.querySelector('#table');"
        f"return t.dataset.version !== undefined && localStorage.getItem('sectional.list') === '{name}'"
        " && document.querySelectorAll('.row[data-row-id]').length > 0"),
        message="the first page was not drawn")


def severe_entries(driver):
    return [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]


# ---------- fixtures ----------

@pytest.fixture(autouse=True)
def no_unexpected_console_errors(driver):
    """After every test: nothing SEVERE on the console except the 404s provoked on purpose."""
    driver.get_log("browser")  # drain what earlier tests left
    yield
    unexpected = [e for e in severe_entries(driver) if not EXPECTED_404.search(e["message"])]
    assert not unexpected, f"console errors: {unexpected}"


# ---------- tests ----------

def test_page_loads_without_console_errors_or_outside_requests(driver):
    driver.get(BASE + "/")
    wait(driver, lambda d: len(drawn_rows(d)) > 0, message="no rows drawn")
    assert severe_entries(driver) == []
    # Self-contained: every resource the page fetched came from the server itself.
    urls = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert urls and all(u.startswith(BASE + "/") for u in urls), urls
    assert "Sectional" in driver.title


def test_a_malformed_escape_in_the_fragment_names_no_list(driver):
    """`#%E0%A4%A` cannot be decoded: the page opens the list it would open without a fragment
    (not stuck at Loading…), and a hash changed to such a fragment later is ignored (the
    fixture sees no uncaught error on the console)."""
    open_list(driver, LIST)
    driver.get("about:blank")
    driver.get(f"{BASE}/#%E0%A4%A")
    wait(driver, lambda d: d.find_element(By.ID, "status").text.startswith("Contacts") and len(drawn_rows(d)) > 0,
         message="the page did not open the remembered list")
    assert driver.find_element(By.ID, "message").text == ""
    driver.execute_script("location.hash = 'settings'")
    wait(driver, lambda d: d.find_element(By.ID, "status").text.startswith("Settings"), message="settings not drawn")
    driver.execute_script("location.hash = '%E0%A4%B'")
    driver.execute_script("location.hash = arguments[0]", LIST)
    wait(driver, lambda d: d.find_element(By.ID, "status").text.startswith("Contacts"), message="contacts not drawn")


def test_switching_lists_cancels_a_load_that_hangs(driver):
    """A list whose first page never comes does not hold up the next one: opening another list
    cancels the load under way (its requests with it), and the other list is drawn. The page's
    requests for contacts' rows are held by the browser (DevTools' Fetch domain, never continued)."""
    open_list(driver, "settings")
    driver.execute_cdp_cmd("Fetch.enable", {"patterns": [{"urlPattern": f"*/v1/lists/{LIST}/rows*"}]})
    try:
        driver.execute_script("location.hash = arguments[0]", LIST)
        # The reload reads the outline, then asks for the first page, which hangs.
        wait(driver, lambda d: d.execute_script(
            "return performance.getEntriesByType('resource').some(e => /\\/v1\\/lists\\/contacts\\?/.test(e.name))"),
            message="contacts' outline was not read")
        assert driver.find_element(By.ID, "table").text == "Loading…"
        driver.execute_script("location.hash = 'settings'")
        wait(driver, lambda d: d.find_element(By.ID, "status").text.startswith("Settings") and len(drawn_rows(d)) > 0,
             message="settings was not drawn while contacts' first page hung")
        assert driver.execute_script("return localStorage.getItem('sectional.list')") == "settings"
        assert driver.find_element(By.ID, "message").text == "", "the cancelled load said something"
    finally:
        driver.execute_cdp_cmd("Fetch.disable", {})
    # Its rows answered again, contacts opens as ever (and is the list the next test finds open).
    driver.execute_script("location.hash = arguments[0]", LIST)
    wait(driver, lambda d: d.find_element(By.ID, "status").text.startswith("Contacts") and len(drawn_rows(d)) == PAGE,
         message="contacts was not drawn after the cancelled load")


def test_contacts_list_is_drawn_from_the_first_page(driver):
    driver.get(BASE + "/")
    picker = Select(wait(driver, lambda d: d.find_element(By.ID, "list-picker")))
    wait(driver, lambda d: len(picker.options) > 0)
    assert [o.get_attribute("value") for o in picker.options] == [l["name"] for l in get("/v1/lists")["lists"]]
    # Switch away and back through the picker, so the contacts list is really drawn by choosing it.
    picker.select_by_value("settings")
    wait(driver, lambda d: d.find_element(By.ID, "status").text.startswith("Settings"), message="settings not drawn")
    assert "settings" in driver.current_url
    picker.select_by_value(LIST)
    wait(driver, lambda d: d.find_element(By.ID, "status").text.startswith("Contacts"), message="contacts not drawn")
    assert len(drawn_rows(driver)) == PAGE

    page = get(f"/v1/lists/{LIST}/rows?pageSize={PAGE}&view={view_id(driver)}")
    want_rows = [row for section in page["sections"] for row in section["rows"]]
    assert drawn_ids(driver) == [row["id"] for row in want_rows]
    titles = [h.text for h in driver.find_elements(By.CSS_SELECTOR, ".section .header .htitle")]
    assert titles == [s["title"] for s in page["sections"]]
    more = driver.find_element(By.ID, "more")
    assert int(more.get_attribute("data-items-after")) == page["itemsAfter"]
    assert driver.find_elements(By.CSS_SELECTOR, "#more .skel"), "no placeholder rows"

    badges = driver.execute_script(
        "return [...document.querySelectorAll('.row[data-row-id]')].map(e => (e.querySelector('.badge') || {}).textContent || null)")
    assert badges == [row.get("badge") for row in want_rows]
    assert any(badges), "no badge on the first page to check"
    first = want_rows[0]
    assert row_info(driver, f"#{first['accessibilityIdentifier']}") == {
        "rowId": first["id"], "id": first["accessibilityIdentifier"], "title": first["title"],
        "indexPath": "0.0", "subtitle": first.get("subtitle"), "detail": first.get("detail"), "badge": first.get("badge"),
        "minHeight": f"{first['height']}px", "highlighted": False, "inView": True}


def test_collapsed_section_stays_collapsed_after_reload(driver):
    open_list(driver)
    view = view_id(driver)
    assert len(drawn_rows(driver, 0)) > 0
    try:
        click_header(driver, 0)
        wait(driver, lambda d: len(drawn_rows(d, 0)) == 0, message="rows of section 0 still drawn")
        wait(driver, lambda d: header(d, 0).get_attribute("aria-expanded") == "false", message="header 0 not collapsed")
        assert "Engineering" in get(f"/v1/lists/{LIST}/views/{view}")["hidden"]

        driver.refresh()
        wait(driver, lambda d: len(drawn_rows(d)) > 0, message="nothing drawn after reload")
        assert view_id(driver) == view
        # The page may draw again once its event stream is open: each check reads one render.
        wait(driver, lambda d: header(d, 0).get_attribute("aria-expanded") == "false" and len(drawn_rows(d, 0)) == 0
             and len(drawn_rows(d, 1)) > 0,
             message="after reload, section 0 should stay collapsed with the next section's rows after its header")

        click_header(driver, 0)  # expand again, for the tests that follow
        wait(driver, lambda d: len(drawn_rows(d, 0)) > 0, message="section 0 did not expand")
        assert "Engineering" not in get(f"/v1/lists/{LIST}/views/{view}")["hidden"]
    finally:
        # Whatever failed above, the view the next tests open shows section 0 again.
        api("PUT", f"/v1/lists/{LIST}/views/{view}/sections/0", {"hidden": False})


def test_scrolling_loads_further_pages_until_the_end(driver):
    open_list(driver)
    view = view_id(driver)
    assert len(drawn_rows(driver)) == PAGE
    driver.execute_script("document.querySelectorAll('.row[data-row-id]')[arguments[0] - 1].scrollIntoView()", PAGE)
    wait(driver, lambda d: len(drawn_rows(d)) > PAGE, message="the second page did not load on scroll")
    first_two = get(f"/v1/lists/{LIST}/rows?pageSize={2 * PAGE}&view={view}")
    want = [row["id"] for section in first_two["sections"] for row in section["rows"]]
    assert drawn_ids(driver)[: 2 * PAGE] == want

    # Keep scrolling to the bottom: every section gets drawn, every visible row exactly once.
    load_all(driver)
    outline = get(f"/v1/lists/{LIST}?view={view}")
    titles = [h.text for h in driver.find_elements(By.CSS_SELECTOR, ".section .header .htitle")]
    assert titles == [s["title"] for s in outline["sections"]]
    ids = drawn_ids(driver)
    assert len(ids) == outline["rowCount"] == len(set(ids))
    hidden = [s["index"] for s in outline["sections"] if s["hidden"]]
    assert hidden, "the demo config hides Archived by default"
    for index in hidden:
        assert header(driver, index).get_attribute("aria-expanded") == "false"
        assert len(drawn_rows(driver, index)) == 0


def find_tag(driver, tag):
    box = driver.find_element(By.ID, "tag-input")
    box.clear()
    box.send_keys(str(tag), Keys.ENTER)


def test_find_tag_scrolls_to_and_highlights_the_row(driver):
    open_list(driver)
    view = view_id(driver)
    outline = get(f"/v1/lists/{LIST}?view={view}")
    # A tag well past the first page: in the fourth visible section, so pages must be walked.
    target = [s for s in outline["sections"] if not s["hidden"] and s["rowCount"] > 5][3]
    tag = target["firstTag"] + 5
    answer = get(f"/v1/lists/{LIST}/tags/{tag}?view={view}")
    assert answer["hidden"] is False
    find_tag(driver, tag)
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".row.hl"), message="no row highlighted")
    assert len(driver.find_elements(By.CSS_SELECTOR, ".row.hl")) == 1
    row = row_info(driver, ".row.hl")
    assert row["rowId"] == answer["row"]["id"]
    assert row["id"] == answer["row"]["accessibilityIdentifier"]
    assert row["indexPath"] == "{section}.{row}".format(**answer["indexPath"])
    assert row["inView"], "the highlighted row was not scrolled into view"
    assert answer["row"]["title"] in driver.find_element(By.ID, "message").text


def test_find_tag_explains_missing_and_hidden_rows(driver):
    open_list(driver)
    view = view_id(driver)
    message = driver.find_element(By.ID, "message")
    find_tag(driver, 999999)
    wait(driver, lambda d: "No row holds tag 999999" in message.text, message="no tag-not-found message")
    assert "warn" in message.get_attribute("class")
    assert get_status(f"/v1/lists/{LIST}/tags/999999?view={view}") == (404, "/problems/tag-not-found")

    archived = next(s for s in get(f"/v1/lists/{LIST}?view={view}")["sections"] if s["hidden"])
    answer = get(f"/v1/lists/{LIST}/tags/{archived['firstTag']}?view={view}")
    assert answer["hidden"] is True
    find_tag(driver, archived["firstTag"])
    wait(driver, lambda d: "collapsed" in message.text, message="no hidden-section message")
    assert answer["row"]["title"] in message.text
    assert not driver.find_elements(By.CSS_SELECTOR, ".row.hl")


def get_status(path):
    status, body = api("GET", path)
    return status, (body or {}).get("type")


def test_record_written_through_the_api_appears_without_reload(driver):
    open_list(driver)
    view = view_id(driver)
    driver.execute_script("window.__notReloaded = true")
    reloads = driver.find_element(By.ID, "table").get_attribute("data-reloads")
    version = get(f"/v1/lists/{LIST}")["version"]
    assert api("GET", f"/v1/lists/{LIST}/changes?since={version}")[0] == 200, "the page needs the changes endpoint"
    record_id = f"p-browser-{uuid.uuid4().hex[:8]}"
    path = f"/v1/collections/people/records/{record_id}"
    row_selector = f'.row[data-row-id="{record_id}"]'
    record = {"name": "Aaron Aardvark", "team": "Engineering", "kind": "person", "email": "a@example.com",
              "salary": 1, "title": "Tester", "avatar": "person.crop.circle.fill", "unread": 7}
    try:
        status, _ = api("PUT", path, record)
        assert status == 201
        wait(driver, lambda d: row_info(d, row_selector), message="the new record never showed up")
        where = get(f"/v1/lists/{LIST}/rows/{record_id}?view={view}")
        row = row_info(driver, row_selector)
        assert row["indexPath"] == "{section}.{row}".format(**where["indexPath"])
        assert row["id"] == where["row"]["accessibilityIdentifier"]
        assert row["title"] == "Aaron Aardvark"
        assert row["detail"] == where["row"]["detail"] == "$1.00"
        # Rows after it moved down one place: the page shows their new index paths and ids.
        wait(driver, lambda d: drawn_ids(d)[:PAGE] == page_ids(view)[:PAGE], message="drawn rows differ from the API")

        # An edit in place, then a delete: both arrive by themselves too.
        status, _ = api("PUT", path, {**record, "name": "Aaron Aardvark Jr"})
        assert status == 200
        wait(driver, lambda d: (row_info(d, row_selector) or {}).get("title") == "Aaron Aardvark Jr",
             message="the edit never showed up")
    finally:
        status, _ = api("DELETE", path)
    assert status == 204
    wait(driver, lambda d: row_info(d, row_selector) is None, message="the delete never showed up")
    assert drawn_ids(driver)[:PAGE] == page_ids(view)[:PAGE]
    assert driver.execute_script("return window.__notReloaded === true"), "the page was reloaded"
    # Every write arrived as a changes diff applied in place: the list was never fetched afresh.
    assert driver.find_element(By.ID, "table").get_attribute("data-reloads") == reloads


def page_ids(view):
    page = get(f"/v1/lists/{LIST}/rows?pageSize={PAGE}&view={view}")
    return [row["id"] for section in page["sections"] for row in section["rows"]]


def load_all(driver):
    """Scrolls to the bottom until the page has walked every page."""
    def at_end(d):
        d.execute_script("window.scrollTo(0, document.documentElement.scrollHeight)")
        return not d.find_elements(By.ID, "more")
    wait(driver, at_end, timeout=30, message="never reached the end of the list")


def api_outline_and_rows(view):
    """The whole visible list through the view, as (headers, rows) to compare with the page."""
    headers, rows, token = {}, [], None
    while True:
        page = get(f"/v1/lists/{LIST}/rows?pageSize=500&view={view}" + (f"&pageToken={token}" if token else ""))
        for section in page["sections"]:
            headers[section["index"]] = section["title"]
            rows += [[r["id"], r.get("accessibilityIdentifier", ""), r["title"], str(r["tag"]["location"])]
                     for r in section["rows"]]
        token = page.get("nextPageToken")
        if not token:
            return page["version"], [headers[i] for i in sorted(headers)], rows


def page_outline_and_rows(driver):
    return driver.execute_script(
        "return [Number(document.querySelector('#table').dataset.version),"
        " [...document.querySelectorAll('.section .htitle')].map(e => e.textContent),"
        " [...document.querySelectorAll('.row[data-row-id]')].map(e =>"
        "   [e.dataset.rowId, e.id, e.querySelector('.rtitle').textContent, e.dataset.tag])]")


@pytest.mark.parametrize("loaded", ["everything", "two pages"])
def test_live_updates_keep_the_list_equal_to_the_api(driver, loaded):
    """Moves across sections, a new section, a deleted section and a mixed batch, applied live to
    a fully or partly loaded list: what the page draws must always be what the API serves (all of
    it, or the first rows of it), and scrolling on afterwards must continue without gaps."""
    open_list(driver)
    view = view_id(driver)
    if loaded == "everything":
        load_all(driver)
    else:
        driver.execute_script("document.querySelectorAll('.row[data-row-id]')[arguments[0] - 1].scrollIntoView()", PAGE)
        wait(driver, lambda d: len(drawn_rows(d)) > PAGE, message="the second page did not load")
    driver.execute_script("window.__notReloaded = true")
    reloads = driver.find_element(By.ID, "table").get_attribute("data-reloads")
    version = get(f"/v1/lists/{LIST}")["version"]
    assert api("GET", f"/v1/lists/{LIST}/changes?since={version}")[0] == 200, "the page needs the changes endpoint"
    records = []
    token = None
    while True:
        answer = get("/v1/collections/people/records?pageSize=500" + (f"&pageToken={token}" if token else ""))
        records += answer["records"]
        token = answer.get("nextPageToken")
        if not token:
            break
    by_team = {}
    for record in records:
        by_team.setdefault(record.get("team"), []).append(record)
    originals, added = {}, []

    def consistent(d):
        """The page is at the API's version and draws the API's list, or the beginning of it."""
        version, headers, rows = page_outline_and_rows(d)
        want_version, want_headers, want_rows = api_outline_and_rows(view)
        if d.find_elements(By.ID, "more"):  # partly loaded: a prefix, never a gap or a stale row
            want_headers, want_rows = want_headers[:len(headers)], want_rows[:len(rows)]
        return (version, headers, rows) == (want_version, want_headers, want_rows) and len(rows) >= PAGE

    def write(upserts=(), deletes=()):
        for record in upserts:
            originals.setdefault(record["id"], next((r for r in records if r["id"] == record["id"]), None))
        for record_id in deletes:
            originals.setdefault(record_id, next((r for r in records if r["id"] == record_id), None))
        status, body = api("POST", "/v1/collections/people/batch", {"upsert": list(upserts), "delete": list(deletes)})
        assert status == 200, body
        wait(driver, consistent, message="the page differs from the API after a write")

    try:
        engineer, designer = by_team["Engineering"][0], by_team["Design"][0]
        write(upserts=[{**engineer, "team": "Sales"}])                      # row moves to another section
        write(upserts=[{**designer, "name": "Zz Top"}])                     # row moves inside its section
        added.append("p-browser-quality")
        write(upserts=[{"id": "p-browser-quality", "name": "Quinn QA", "team": "Quality", "kind": "person"}])
        write(deletes=[r["id"] for r in by_team["People"]])                 # a whole section goes
        mixed = [{**r, "name": "Aa " + r["name"]} for r in by_team["Sales"][:5]] + \
                [{**r, "team": "Legal"} for r in by_team["Marketing"][:5]]
        write(upserts=mixed, deletes=[r["id"] for r in by_team["Support"][:5]])
    finally:
        restore = [r for r in originals.values() if r is not None]
        status, _ = api("POST", "/v1/collections/people/batch", {"upsert": restore, "delete": added})
        assert status == 200
    wait(driver, consistent, message="the page differs from the API after restoring the records")
    load_all(driver)
    wait(driver, consistent, message="the page differs from the API after scrolling to the end")
    assert driver.execute_script("return window.__notReloaded === true"), "the page was reloaded"
    # The page applied diffs, never refetching from page one.
    assert driver.find_element(By.ID, "table").get_attribute("data-reloads") == reloads


def screenshot(driver, path, width, height, mobile=False):
    """Screenshot of exactly width×height CSS pixels (the window's own size includes browser UI)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 2 if mobile else 1, "mobile": mobile})
    try:
        wait(driver, lambda d: d.execute_script("return innerWidth") == width, message="viewport not resized")
        overflow = driver.execute_script("return document.documentElement.scrollWidth - innerWidth")
        assert overflow <= 0, f"horizontal scrolling at {width} px: {overflow} px too wide"
        assert driver.save_screenshot(path) and os.path.getsize(path) > 10_000
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_row_image_accessory_toggle_and_actions_are_drawn(driver):
    """A run-time list whose rows have an image, accessories, a toggle's value, a disabled row and swipe actions."""
    image = ("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='8' height='8'%3E"
             "%3Crect width='8' height='8' fill='%23f80'/%3E%3C/svg%3E")
    # An image on another origin (the browser tests' second web server), as a CDN's avatar is.
    elsewhere = os.environ["SECTIONAL_CORS_ORIGIN"].rstrip("/") + "/avatar.svg"
    definition = {"title": "Row fields", "sections": [{"key": "rows", "title": "Rows", "rows": [
        {"id": "wifi", "title": "Wi-Fi", "accessory": "toggle", "value": True, "image": image},
        {"id": "cdn", "title": "Avatar", "image": elsewhere},
        {"id": "bt", "title": "Bluetooth", "accessory": "toggle", "value": False},
        {"id": "about", "title": "About", "accessory": "checkmark", "enabled": False,
         "actions": [{"id": "hide", "title": "Hide"}, {"id": "delete", "title": "Delete", "style": "destructive"}]}]}]}
    status, body = api("PUT", "/v1/lists/preview-rows/definition", definition)
    assert status in (200, 201), body
    try:
        open_list(driver, "preview-rows")
        read = ("const row = (id) => document.querySelector(`.row[data-row-id=\"${id}\"]`);"
                "const wifi = row('wifi'), bt = row('bt'), about = row('about');"
                "const img = wifi.querySelector('img.rimg');"
                "return {image: img && img.getAttribute('src'), loaded: !!img && img.complete && img.naturalWidth > 0,"
                " wifi: wifi.querySelector('input.switch').checked, bt: bt.querySelector('input.switch').checked,"
                " accessory: about.querySelector('.acc').dataset.accessory, disabled: about.classList.contains('off'),"
                " enabled: !wifi.classList.contains('off'),"
                " actions: [...about.querySelectorAll('.actions button')].map(b => [b.dataset.action, b.textContent, b.className])}")
        wait(driver, lambda d: d.execute_script(read)["loaded"], message="the row image was not drawn")
        other = ("const img = document.querySelector('.row[data-row-id=\"cdn\"] img.rimg');"
                 "return !!img && img.complete && img.naturalWidth > 0")
        wait(driver, lambda d: d.execute_script(other), message=f"the row image from {elsewhere} was not drawn")
        drawn = driver.execute_script(read)
        assert drawn == {"image": image, "loaded": True, "wifi": True, "bt": False, "accessory": "checkmark",
                         "disabled": True, "enabled": True,
                         "actions": [["hide", "Hide", "default"], ["delete", "Delete", "destructive"]]}, drawn
        driver.find_element(By.CSS_SELECTOR, '.row[data-row-id="about"] button[data-action="delete"]').click()
        wait(driver, lambda d: "Delete" in d.find_element(By.ID, "message").text, message="the action was not announced")
    finally:
        # Leave the page first: a poll of the list's changes after the delete would answer 404.
        driver.get("about:blank")
        api("DELETE", "/v1/lists/preview-rows/definition")


def test_a_view_gone_from_the_server_is_dropped_and_the_next_one_kept(driver):
    """A view that expired or was evicted (here deleted): the page reads the list as it is for
    everyone and forgets the id (it kept it, and Find tag answered view-not-found on every try,
    across reloads); the view its next collapse makes is the one it keeps."""
    open_list(driver)
    gone = view_id(driver)
    assert api("DELETE", f"/v1/lists/{LIST}/views/{gone}")[0] == 204
    open_list(driver)
    kept = f"return localStorage.getItem('sectional.view.{LIST}')"
    wait(driver, lambda d: d.execute_script(kept) is None, message="the page kept the view the server no longer has")
    outline = get(f"/v1/lists/{LIST}")
    shown = [s for s in outline["sections"] if not s["hidden"] and s["rowCount"] > 0][0]
    message = driver.find_element(By.ID, "message")
    find_tag(driver, shown["firstTag"])
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".row.hl"), message="no row highlighted")
    assert "warn" not in message.get_attribute("class")
    click_header(driver, 0)
    wait(driver, lambda d: d.execute_script(kept) not in (None, gone), message="the new view was not kept")
    fresh = view_id(driver)
    try:
        assert outline["sections"][0]["key"] in get(f"/v1/lists/{LIST}/views/{fresh}")["hidden"]
    finally:
        api("PUT", f"/v1/lists/{LIST}/views/{fresh}/sections/0", {"hidden": False})
    # The reads through the deleted view were answered 404 (expected here only).
    unexpected = [e for e in severe_entries(driver)
                  if not EXPECTED_404.search(e["message"]) and not ("404" in e["message"] and gone in e["message"])]
    assert not unexpected, f"console errors: {unexpected}"


def test_screenshots(driver):
    """Artifacts: desktop and phone screenshots, one section collapsed and one row found by tag."""
    os.makedirs(ARTIFACTS, exist_ok=True)
    open_list(driver)
    view = view_id(driver)
    click_header(driver, 0)
    wait(driver, lambda d: len(drawn_rows(d, 0)) == 0 and len(drawn_rows(d, 1)) > 0)
    tag = get(f"/v1/lists/{LIST}?view={view}")["sections"][1]["firstTag"] + 4
    find_tag(driver, tag)
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".row.hl"))
    driver.execute_script("document.activeElement.blur(); window.scrollTo(0, 0)")
    wait(driver, lambda d: d.execute_script("return document.getAnimations().length === 0"))
    try:
        screenshot(driver, os.path.join(ARTIFACTS, "preview.png"), 1280, 900)
        screenshot(driver, os.path.join(ARTIFACTS, "preview-phone.png"), 390, 844, mobile=True)
    finally:
        click_header(driver, 0)
        wait(driver, lambda d: len(drawn_rows(d, 0)) > 0)
