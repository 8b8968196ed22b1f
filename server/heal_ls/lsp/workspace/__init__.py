"""The workspace model: the server, its folders, their settings, documents and failures."""
