package envd

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openPTY opens a terminal pair through /dev/ptmx (no cgo, which
// agentd is built without): the master side agentd keeps, the slave side
// the process gets, sized cols x rows (80x24 for zero).
func openPTY(cols, rows uint16) (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	var n int
	var ctlErr error
	rc, err := master.SyscallConn()
	if err == nil {
		err = rc.Control(func(fd uintptr) {
			if ctlErr = unix.IoctlSetPointerInt(int(fd), unix.TIOCSPTLCK, 0); ctlErr != nil {
				return
			}
			n, ctlErr = unix.IoctlGetInt(int(fd), unix.TIOCGPTN)
		})
	}
	if err == nil {
		err = ctlErr
	}
	if err != nil {
		master.Close()
		return nil, nil, fmt.Errorf("unlock the terminal: %w", err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	if err := resizePTY(master, cols, rows); err != nil {
		master.Close()
		slave.Close()
		return nil, nil, err
	}
	return master, slave, nil
}

// resizePTY sets the terminal's size (80x24 for zero).
func resizePTY(f *os.File, cols, rows uint16) error {
	if cols == 0 {
		cols = 80
	}
	if rows == 0 {
		rows = 24
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ctlErr error
	err = rc.Control(func(fd uintptr) {
		ctlErr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: rows, Col: cols})
	})
	if err != nil {
		return err
	}
	return ctlErr
}
