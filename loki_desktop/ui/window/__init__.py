"""The main window's frame: header, sidebar, status lines and shortcuts."""
