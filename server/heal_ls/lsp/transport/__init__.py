"""Patches to pygls's transport: the frame reader (wire), document sync and $/cancelRequest."""
