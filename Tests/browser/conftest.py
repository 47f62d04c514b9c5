"""Shared by the browser tests: one headless Chromium for the whole run (Debian's chromium and
chromedriver), with the browser console log kept so that tests can read it."""
import os

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service


@pytest.fixture(scope="session")
def driver():
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900",
                 "--hide-scrollbars", "--force-device-scale-factor=1", "--lang=en-US"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    browser = webdriver.Chrome(options=options, service=service)
    yield browser
    browser.quit()
