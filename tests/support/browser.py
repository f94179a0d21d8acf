"""The browser tests' viewports: a phone at the table, a desktop at the desk."""

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
