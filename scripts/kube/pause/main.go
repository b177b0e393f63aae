// Command pause is the sandbox ("pause") container of the test cluster's
// pods: it holds the pod's namespaces, reaps orphans as PID 1 and exits on
// SIGINT or SIGTERM. The cluster cannot pull registry.k8s.io/pause, so
// kube-up.sh builds this one into a local image.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range sigs {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
