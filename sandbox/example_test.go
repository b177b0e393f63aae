package sandbox_test

import (
	"context"
	"fmt"
	"log"

	"github.com/containerd/errdefs"
	"github.com/deskrun/deskrun/api"
	"github.com/deskrun/deskrun/sandbox"
	"github.com/deskrun/deskrun/sandbox/fake"
)

// Starting a sandbox and stopping it again: any Provider (docker, local,
// kube, or the fake one used here) does it the same way. Stopping an
// unknown sandbox answers errdefs.ErrNotFound, which clean-up may ignore.
func ExampleProvider() {
	var p sandbox.Provider = fake.New(fake.Config{})
	ctx := context.Background()

	inst, err := p.Start(ctx, sandbox.Spec{
		Image:  "deskrun/minimal:latest",
		Screen: api.Screen{Width: 1024, Height: 768},
		Labels: map[string]string{"deskrun.run": "example"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(inst.ID, inst.Labels["deskrun.run"])

	fmt.Println(p.Stop(ctx, inst.ID))
	fmt.Println(errdefs.IsNotFound(p.Stop(ctx, inst.ID)))
	// Output:
	// fake-1 example
	// <nil>
	// true
}

// A provider without an admin channel answers not implemented through
// sandbox.AdminExec, as wrappers of a provider pass the channel through.
func ExampleAdminExec() {
	p := fake.New(fake.Config{})
	_, err := sandbox.AdminExec(context.Background(), p, "fake-1", api.ExecRequest{Cmd: []string{"id"}})
	fmt.Println(errdefs.IsNotImplemented(err))
	// Output: true
}

// A scripted provider: the first start fails as an engine that is down,
// the second starts a sandbox; nothing is left running at the end.
func ExampleProvider_scripted() {
	p := fake.New(fake.Config{Errs: []error{errdefs.ErrUnavailable.WithMessage("engine down")}})
	ctx := context.Background()
	_, err := p.Start(ctx, sandbox.Spec{})
	fmt.Println(errdefs.IsUnavailable(err))
	inst, _ := p.Start(ctx, sandbox.Spec{})
	fmt.Println(p.Running())
	_ = p.Stop(ctx, inst.ID)
	fmt.Println(p.Attempts(), p.Running(), p.Stopped())
	// Output:
	// true
	// [fake-1]
	// 2 [] [fake-1]
}
