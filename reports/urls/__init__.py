"""The reports app's URL modules: ``public`` (every page players see without logging in) and
``documents`` (the organizer's printing, Excel export and registration import)."""
