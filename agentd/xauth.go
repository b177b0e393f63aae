package agentd

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
)

// xAuthority is the access control of an Xvfb agentd starts. The server
// gets a fresh MIT-MAGIC-COOKIE-1 (-auth, so access control is on and a
// client without the cookie is refused); once it answers, xhost, holding
// the cookie, admits by their uid the user agentd runs as and root
// (server-interpreted localuser entries, checked by the kernel's peer
// credentials). So the desktop's programs, agentd's commands and the
// admin channel connect as before, while other users of the machine (a
// local sandbox's neighbours) cannot reach the display.
type xAuthority struct {
	dir    string // 0700, holding the two files
	server string // the server's -auth file
	client string // an Xauthority file naming the display, for xhost
	cookie []byte
}

func newXAuthority() (*xAuthority, error) {
	dir, err := os.MkdirTemp("", "agentd-x-")
	if err != nil {
		return nil, fmt.Errorf("X authority: %w", err)
	}
	a := &xAuthority{dir: dir, server: filepath.Join(dir, "server"), client: filepath.Join(dir, "Xauthority"), cookie: make([]byte, 16)}
	rand.Read(a.cookie)
	// The server takes every cookie of its file, whatever display the
	// entry names.
	if err := os.WriteFile(a.server, xauthEntry("", a.cookie), 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("X authority: %w", err)
	}
	return a, nil
}

// admit lets the user agentd runs as, and root, connect to display
// without the cookie.
func (a *xAuthority) admit(display string) error {
	n := strings.TrimPrefix(display, ":")
	if i := strings.IndexByte(n, '.'); i >= 0 {
		n = n[:i]
	}
	if err := os.WriteFile(a.client, xauthEntry(n, a.cookie), 0o600); err != nil {
		return fmt.Errorf("X authority: %w", err)
	}
	u, err := user.Current()
	if err != nil {
		return fmt.Errorf("X authority: the user agentd runs as (uid %d) has no name to admit: %w", os.Getuid(), err)
	}
	names := []string{"root"}
	if u.Username != "root" {
		names = append(names, u.Username)
	}
	for _, name := range names {
		cmd := exec.Command("xhost", "+si:localuser:"+name)
		cmd.Env = append(os.Environ(), "DISPLAY="+display, "XAUTHORITY="+a.client)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("admit %s to %s: xhost: %v: %s", name, display, err, bytes.TrimSpace(out))
		}
	}
	return nil
}

func (a *xAuthority) remove() { os.RemoveAll(a.dir) }

// xauthEntry is one Xauthority record: family FamilyWild (any address),
// the display number (empty matches any), MIT-MAGIC-COOKIE-1 and cookie.
func xauthEntry(number string, cookie []byte) []byte {
	var b bytes.Buffer
	field := func(s []byte) {
		binary.Write(&b, binary.BigEndian, uint16(len(s)))
		b.Write(s)
	}
	binary.Write(&b, binary.BigEndian, uint16(0xffff)) // FamilyWild
	field(nil)                                         // address
	field([]byte(number))
	field([]byte("MIT-MAGIC-COOKIE-1"))
	field(cookie)
	return b.Bytes()
}
