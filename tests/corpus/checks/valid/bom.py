print("a UTF-8 file with a byte order mark")
