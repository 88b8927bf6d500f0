// placeholder replaced by the extension issue
