package main

import (
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/extension"
	"github.com/bua-dev/bua/pkg/bridge"
)

func init() {
	register(func(env *Env) *cli.Command { return newExtensionCommand(env, nil, nil) }, "extension")
}

// extensionOptions is `bua extension path`'s and `bua extension id`'s
// command line: the global flags alone.
type extensionOptions struct {
	globalOptions
}

// newExtensionCommand is `bua extension`: path and id, whose seams are
// pathF and idF.
func newExtensionCommand(env *Env, pathF, idF func(*extensionOptions) error) *cli.Command {
	o := &extensionOptions{}
	return &cli.Command{
		Name:     "extension",
		Category: catSetup,
		Usage:    "the bundled Chrome extension: write it out for Load unpacked, or print its ID",
		Subcommands: []*cli.Command{
			{
				Name:  "path",
				Usage: "write the extension to a folder and print it, for chrome://extensions > Load unpacked",
				Action: func(c *cli.Context) error {
					o.globalOptions = readGlobals(c, env)
					return runWith(o, pathF, writeExtension)
				},
			},
			{
				Name:  "id",
				Usage: "print the extension IDs the daemon accepts: the pinned one, and the store IDs of $" + bridge.EnvExtensionIDs,
				Description: "The pinned ID is the bundled extension's, whose manifest carries its key:\n" +
					"Load unpacked (bua extension path) and the managed browser.\n" +
					"The Chrome Web Store and Edge Add-ons refuse a manifest with a key and give\n" +
					"the extension IDs of their own: the daemon accepts those listed in\n" +
					"$" + bridge.EnvExtensionIDs + " (comma-separated), each as its exact Origin. One ID a\n" +
					"line: the ID, which it is, and where it comes from (--quiet: the IDs alone).",
				Action: func(c *cli.Context) error {
					o.globalOptions = readGlobals(c, env)
					return runWith(o, idF, printExtensionIDs)
				},
			},
		},
	}
}

// writeExtension writes the bundled extension under the state dir and
// prints the folder, for Load unpacked.
func writeExtension(o *extensionOptions) error {
	d, err := dirs(o.env)
	if err != nil {
		return err
	}
	dir, err := extension.WriteTo(filepath.Join(d.State, "extension"), nil)
	if err != nil {
		return err
	}
	fmt.Fprintln(o.env.Stdout, dir)
	return nil
}

// printExtensionIDs prints the IDs the daemon accepts, pinned first, and
// which is which: the pinned ID is the unpacked and managed extension's,
// the others the stores' (BUA_EXTENSION_IDS). A malformed
// BUA_EXTENSION_IDS is the error `bua serve` would stop on.
func printExtensionIDs(g *extensionOptions) error {
	store, err := bridge.ParseExtensionIDs(g.env.Getenv(bridge.EnvExtensionIDs))
	if err != nil {
		return usageError(err.Error())
	}
	if g.JSON {
		if store == nil {
			store = []string{}
		}
		return printJSON(g.env, map[string]any{"pinned": extension.ID, "store": store})
	}
	if g.Quiet {
		for _, id := range append([]string{extension.ID}, store...) {
			fmt.Fprintln(g.env.Stdout, id)
		}
		return nil
	}
	t := g.streams().NewTable("ID", "WHICH", "FROM")
	t.AddRow(extension.ID, "pinned", "unpacked (bua extension path), the managed browser")
	for _, id := range store {
		t.AddRow(id, "store", "$"+bridge.EnvExtensionIDs+" (Chrome Web Store, Edge Add-ons)")
	}
	return t.Render()
}
