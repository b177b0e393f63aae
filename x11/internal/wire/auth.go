package wire

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"os"
)

// Address families of Xauthority entries (X.h, Xauth.h).
const (
	familyInternet  = 0
	familyInternet6 = 6
	familyLocal     = 256
	familyWild      = 65535
)

const cookieName = "MIT-MAGIC-COOKIE-1"

// findCookie returns the MIT-MAGIC-COOKIE-1 the Xauthority file holds for
// d, as Xlib chooses it: the first entry for the display's number (or for
// any number) whose address is this machine for a local or loopback
// connection, the host's address otherwise, or any address. With no file
// or no such entry it returns nothing, and the connection goes without
// authorization (an Xvfb started without -auth takes it).
func findCookie(file string, d Display) (name string, data []byte) {
	if file == "" {
		return "", nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", nil
	}
	hostname, _ := os.Hostname()
	local := d.Network == "unix"
	var ips []net.IP
	if !local {
		if ip := net.ParseIP(d.Host); ip != nil {
			ips = []net.IP{ip}
		} else {
			ips, _ = net.LookupIP(d.Host)
		}
		for _, ip := range ips {
			if ip.IsLoopback() {
				local = true
			}
		}
		if d.Host == hostname {
			local = true
		}
	}
	r := bytes.NewReader(b)
	for {
		e, ok := readEntry(r)
		if !ok {
			return "", nil
		}
		if e.name != cookieName || (len(e.number) > 0 && e.number != d.Number) {
			continue
		}
		match := false
		switch e.family {
		case familyWild:
			match = true
		case familyLocal:
			match = local && string(e.address) == hostname
		case familyInternet, familyInternet6:
			for _, ip := range ips {
				if ip.Equal(net.IP(e.address)) {
					match = true
				}
			}
		}
		if match {
			return e.name, e.data
		}
	}
}

type authEntry struct {
	family        uint16
	address, data []byte
	number, name  string
}

// readEntry reads one entry: a big-endian family, then address, display
// number, authorization name and data, each a big-endian length and that
// many bytes.
func readEntry(r io.Reader) (authEntry, bool) {
	var e authEntry
	if binary.Read(r, binary.BigEndian, &e.family) != nil {
		return e, false
	}
	var fields [4][]byte
	for i := range fields {
		var n uint16
		if binary.Read(r, binary.BigEndian, &n) != nil {
			return e, false
		}
		fields[i] = make([]byte, n)
		if _, err := io.ReadFull(r, fields[i]); err != nil {
			return e, false
		}
	}
	e.address, e.number, e.name, e.data = fields[0], string(fields[1]), string(fields[2]), fields[3]
	return e, true
}
