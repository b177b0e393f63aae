package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// serveTLS is the TLS configuration of deskrun serve: the certificate and
// key files of --tls-cert and --tls-key, or, with --tls-self-signed, a
// certificate authority made at start (written to caFile for clients to
// trust) that signs a certificate for each server name a client asks for
// (SNI), or for the listener's addresses when it names none. A name per
// certificate, not a wildcard: a sandbox's port is PORT-ID.DOMAIN, and
// browsers and OpenSSL refuse a wildcard right under a single-label
// domain such as localhost.
func serveTLS(certFile, keyFile, caFile string, ips []net.IP) (*tls.Config, error) {
	if caFile == "" {
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, usagef("--tls-cert, --tls-key: %v", err)
		}
		return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12, NextProtos: alpn}, nil
	}
	ca, err := newLocalCA()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(caFile), 0o755); err != nil {
		return nil, usagef("--tls-self-signed: %v", err)
	}
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.cert.Raw}), 0o644); err != nil {
		return nil, usagef("--tls-self-signed: %v", err)
	}
	ca.ips = ips
	return &tls.Config{GetCertificate: ca.certificate, MinVersion: tls.VersionTLS12, NextProtos: alpn}, nil
}

// alpn offers HTTP/2 before HTTP/1.1, as ServeTLS would: E2B's SDKs ask
// for HTTP/2 and keep one connection for all their calls. The server is
// handed a TLS listener, so net/http does not add "h2" itself.
var alpn = []string{"h2", "http/1.1"}

// localCA signs the certificates of --tls-self-signed, one per server
// name, made on first use and kept for the life of the server.
type localCA struct {
	key  *ecdsa.PrivateKey
	cert *x509.Certificate
	ips  []net.IP

	mu    sync.Mutex
	leafs map[string]*tls.Certificate
}

func newLocalCA() (*localCA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "deskrun serve local CA " + now.UTC().Format(time.RFC3339)},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(1, 0, 0),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &localCA{key: key, cert: cert, leafs: map[string]*tls.Certificate{}}, nil
}

// certificate answers a TLS handshake with the certificate of the name
// the client asked for.
func (ca *localCA) certificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	name := strings.ToLower(strings.TrimSuffix(hello.ServerName, "."))
	ca.mu.Lock()
	defer ca.mu.Unlock()
	if c, ok := ca.leafs[name]; ok {
		return c, nil
	}
	if len(ca.leafs) >= 4096 {
		clear(ca.leafs) // names of sandboxes long gone
	}
	c, err := ca.sign(name)
	if err != nil {
		return nil, err
	}
	ca.leafs[name] = c
	return c, nil
}

// sign makes a certificate for name (none: the listener's addresses and
// localhost), valid as long as the authority.
func (ca *localCA) sign(name string) (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    ca.cert.NotBefore,
		NotAfter:     ca.cert.NotAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  append([]net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, ca.ips...),
		DNSNames:     []string{"localhost"},
	}
	switch ip := net.ParseIP(name); {
	case name == "":
	case ip != nil:
		tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
	default:
		tmpl.DNSNames = append(tmpl.DNSNames, name)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, fmt.Errorf("certificate for %q: %w", name, err)
	}
	return &tls.Certificate{Certificate: [][]byte{der, ca.cert.Raw}, PrivateKey: key}, nil
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127)) // never fails (crypto/rand)
	return n
}

// httpErrors takes net/http's own log lines into the server's log: a
// TLS handshake a client broke off (each try of a client that does not
// trust the server's authority) at debug, anything else as a warning.
type httpErrors struct{ log *slog.Logger }

func (h httpErrors) Write(p []byte) (int, error) {
	msg := strings.TrimSpace(string(p))
	level := slog.LevelWarn
	if strings.Contains(msg, "TLS handshake error") {
		level = slog.LevelDebug
	}
	h.log.Log(context.Background(), level, msg, "from", "net/http")
	return len(p), nil
}
