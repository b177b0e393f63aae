package docker

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// guardChain is the host firewall chain that keeps sandboxes from opening
// connections to the host itself.
const guardChain = "DESKRUN-SANDBOX"

// guardHost makes the host drop new connections that sandboxes on bridge
// open to it (the bridge's gateway address, or any other address of the
// host): the runner's own connections to agentd, and their answers, pass
// as established. Docker's internal networks cut the route out of the
// host but leave the host's own services, those listening on all
// interfaces, open to every container on the bridge.
//
// It runs iptables, which needs root (or CAP_NET_ADMIN) in the host's
// network namespace: docker-compose.yml grants deskrun that capability.
// Without it, the error says what to run.
func guardHost(ctx context.Context, bridge string) error {
	steps := [][]string{
		{"-N", guardChain},
		{"-F", guardChain},
		{"-A", guardChain, "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "RETURN"},
		{"-A", guardChain, "-j", "DROP"},
	}
	run := func(args ...string) error {
		cmd := exec.CommandContext(ctx, "iptables", append([]string{"-w"}, args...)...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("iptables %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(out.String()))
		}
		return nil
	}
	for i, s := range steps {
		if err := run(s...); err != nil && i > 0 { // -N fails when the chain exists
			return guardError(bridge, err)
		}
	}
	jump := []string{"INPUT", "-i", bridge, "-j", guardChain}
	if run(append([]string{"-C"}, jump...)...) == nil {
		return nil
	}
	if err := run(append([]string{"-I"}, jump...)...); err != nil {
		return guardError(bridge, err)
	}
	return nil
}

func guardError(bridge string, err error) error {
	return fmt.Errorf("sandboxes on %s can reach services of this host that listen on all interfaces: %w "+
		"(run deskrun as root or with CAP_NET_ADMIN, or add: iptables -N %s; iptables -A %s -m conntrack --ctstate ESTABLISHED,RELATED -j RETURN; iptables -A %s -j DROP; iptables -I INPUT -i %s -j %s)",
		bridge, err, guardChain, guardChain, guardChain, bridge, guardChain)
}
