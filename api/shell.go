package api

// Shell sessions: named, long-lived shells in the sandbox that keep their
// working directory, environment and running process between calls
// (agentd's shell service, used by the shell_* tools).

// ShellExecRequest runs a command in a shell session, creating the
// session if it does not exist.
type ShellExecRequest struct {
	// Command is a shell command line; required.
	Command string `json:"command"`
	// Dir is the directory to run it in (absolute); empty means the
	// session's current directory.
	Dir string `json:"dir,omitempty"`
	// WaitMS is how long to wait for the command to finish before
	// answering with the output so far; zero means 30 s. A command still
	// running then keeps running (Shell.Running).
	WaitMS int `json:"wait_ms,omitempty"`
}

// ShellWaitRequest waits for a session's running command to finish.
type ShellWaitRequest struct {
	// WaitMS bounds the wait; zero means 30 s.
	WaitMS int `json:"wait_ms,omitempty"`
}

// ShellWriteRequest writes to the standard input of a session's running
// command.
type ShellWriteRequest struct {
	Input string `json:"input"`
	// PressEnter appends a newline.
	PressEnter bool `json:"press_enter,omitempty"`
}

// Shell is the state of a shell session.
type Shell struct {
	ID string `json:"id"`
	// Dir is the session's current working directory.
	Dir string `json:"dir,omitempty"`
	// Running reports that a command is still running.
	Running bool `json:"running"`
	// Command is the last command line run in the session.
	Command string `json:"command,omitempty"`
	// ExitCode is the exit status of Command once it finished.
	ExitCode *int `json:"exit_code,omitempty"`
	// Output is what Command wrote to standard output and standard error
	// so far, interleaved; the most recent part when it exceeds the
	// service's cap.
	Output string `json:"output"`
}
