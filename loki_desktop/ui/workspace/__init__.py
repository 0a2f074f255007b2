"""The workspace folder: chosen, remembered, watched, its problems and previews."""
