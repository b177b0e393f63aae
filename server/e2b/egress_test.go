package e2b

import (
	"strings"
	"testing"
)

func TestEgress(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		name     string
		internet *bool
		net      *networkConfig
		want     bool
		err      string
	}{
		{"deskrun's default", nil, nil, false, ""},
		{"asked", &yes, nil, true, ""},
		{"refused", &no, nil, false, ""},
		{"deny all is no internet", &yes, &networkConfig{DenyOut: []string{"0.0.0.0/0"}}, false, ""},
		{"deny all, a bare address allowed", &yes, &networkConfig{DenyOut: []string{"0.0.0.0/0"}, AllowOut: []string{"8.8.8.8"}}, false, "network.allowOut"},
		{"allowed over the whole network", &yes, &networkConfig{AllowOut: []string{"*.example.com", "10.1.0.0/16"}}, true, ""},
		{"some denied over no network", nil, &networkConfig{DenyOut: []string{"10.0.0.0/8", "192.168.1.1"}}, false, ""},
		{"some denied over the network", &yes, &networkConfig{DenyOut: []string{"10.0.0.0/8"}}, false, "network.denyOut"},
		{"only IPv6 denied", &yes, &networkConfig{DenyOut: []string{"::/0"}}, false, "network.denyOut"},
		{"a domain denied", &no, &networkConfig{DenyOut: []string{"example.com"}}, false, `network.denyOut[0]: "example.com"`},
		{"a bad allow entry", &yes, &networkConfig{AllowOut: []string{"a b"}}, false, `network.allowOut[0]: "a b"`},
		{"rules", &yes, &networkConfig{Rules: []byte(`{"api.example.com":[{}]}`)}, false, "network.rules"},
		{"empty rules", &yes, &networkConfig{Rules: []byte(`{}`), EgressProxy: []byte(`null`)}, true, ""},
		{"masked host", &yes, &networkConfig{MaskRequestHost: new(string)}, false, "network.maskRequestHost"},
	} {
		got, err := egress(c.internet, c.net)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one naming %s", c.name, err, c.err)
		case err == nil && got != c.want:
			t.Errorf("%s: network %v, want %v", c.name, got, c.want)
		}
	}
}
