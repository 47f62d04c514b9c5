"""Cross-origin calls from a real page on another origin, through headless Chromium.

scripts/browser-test.sh serves Tests/browser/origin/ from a second local web server (its origin in
SECTIONAL_CORS_ORIGIN) and starts Sectional with `server.corsOrigins` naming exactly that origin.
A JSON PUT, a DELETE and a GET with If-None-Match are all preflighted: Chromium refuses the lot when
the preflight's CORS fields are wrong (for instance `Access-Control-Allow-Origin: *, *`). The same
page loaded from an origin that is not listed must be refused, which shows that a CORS refusal is
visible to these tests (as an error in the page and on the console).
"""
import json
import os
import urllib.error
import urllib.request
import uuid

BASE = os.environ["SECTIONAL_BASE_URL"].rstrip("/")
ORIGIN = os.environ["SECTIONAL_CORS_ORIGIN"].rstrip("/")
TOKEN = os.environ.get("SECTIONAL_API_TOKEN")
WAIT = 10  # seconds for the page's calls
CORS_REFUSAL = "blocked by CORS policy"


def record_status(record_id):
    """The status of GET record, asked directly (not through the browser)."""
    try:
        with urllib.request.urlopen(f"{BASE}/v1/collections/people/records/{record_id}", timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def people_version():
    """The version of `contacts`, the list of the `people` collection (any write to it moves it)."""
    with urllib.request.urlopen(f"{BASE}/v1/lists/contacts", timeout=10) as answer:
        return json.load(answer)["version"]


def run_calls(driver, origin, record_id):
    """Opens the page on `origin`, runs its calls against the API, returns (results, console log)."""
    driver.get(f"{origin}/cross-origin.html")
    assert driver.title == "Sectional cross-origin client", f"the page did not load from {origin}"
    assert driver.execute_script("return location.origin") == origin
    driver.get_log("browser")  # drain
    driver.set_script_timeout(WAIT)
    results = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "crossOriginCalls(arguments[0], arguments[1], arguments[2]).then(done, (e) => done({fatal: String(e)}));",
        BASE, TOKEN, record_id)
    return results, driver.get_log("browser")


def test_listed_origin_writes_and_revalidates_across_origins(driver):
    record_id = f"p-cors-{uuid.uuid4().hex[:8]}"
    results, console = run_calls(driver, ORIGIN, record_id)
    report = json.dumps(results, indent=1)
    refusals = [e["message"] for e in console if CORS_REFUSAL in e["message"]]
    assert refusals == [], f"Chromium refused cross-origin calls: {refusals}\n{report}"
    assert [e for e in console if e["level"] == "SEVERE"] == [], f"console errors: {console}"

    assert results["put"].get("status") == 201, report
    assert results["put"]["body"]["id"] == record_id
    assert results["get"].get("status") == 200, report
    assert results["get"]["etag"], f"ETag not exposed to the page: {report}"
    # Chromium hands a 304 to the script as it came (a script-set If-None-Match bypasses its cache);
    # a cached 200 would do too. What must not happen is an error: the preflight was refused.
    assert "error" not in results["conditional"], report
    assert results["conditional"]["status"] in (304, 200), report
    assert results["conditional"]["etag"] == results["get"]["etag"], report
    assert results["delete"].get("status") == 204, report
    assert record_status(record_id) == 404, "the page's DELETE did not reach the server"


def test_unlisted_origin_is_refused(driver):
    """The same page from http://localhost:PORT, an origin Sectional does not list: every
    preflighted call fails in the page, Chromium says why on the console, and nothing is written."""
    unlisted = ORIGIN.replace("//127.0.0.1:", "//localhost:")
    assert unlisted != ORIGIN, ORIGIN
    record_id = f"p-cors-{uuid.uuid4().hex[:8]}"
    before = people_version()
    results, console = run_calls(driver, unlisted, record_id)
    report = json.dumps(results, indent=1)
    # Not only the record gone at the end: the page also DELETEs it, so a PUT that got through
    # and the DELETE after it would leave it 404 too. Nothing of the people collection moved.
    assert people_version() == before, f"a refused call wrote to the people collection: {report}"
    for call in ("put", "conditional", "delete"):
        assert results[call].get("error", "").startswith("TypeError"), f"{call} was not refused: {report}"
    assert any(CORS_REFUSAL in e["message"] for e in console), f"no CORS refusal on the console: {console}"
    assert record_status(record_id) == 404, "a refused PUT must not have reached the server"
