package flowwriter

// mkdirCommand is the command that creates dir and its parents in both of
// Windows' shells: cmd's mkdir (with its default command extensions) and
// PowerShell's both make the parents, and both read a quoted path alike.
func mkdirCommand(dir string) string { return `mkdir "` + dir + `"` }
