package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/bua-dev/bua/pkg/protocol"
)

// The capture command: screenshot (the extension's actions/capture.js).

func init() {
	register(func(env *Env) *cli.Command { return newScreenshotCommand(env, nil) }, "screenshot")
}

// screenshotOptions is `bua screenshot`'s command line.
type screenshotOptions struct {
	actionOptions
	// Output is the file to write: --output, or screenshot-TIME.jpg.
	Output   string
	FullPage bool
	Labels   bool
}

func newScreenshotCommand(env *Env, runF func(*screenshotOptions) error) *cli.Command {
	o := &screenshotOptions{}
	return actionCommand("screenshot", "save a JPEG of the tab", "",
		[]cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `FILE` (default: screenshot-TIME.jpg)"},
			&cli.BoolFlag{Name: "full-page", Usage: "capture the whole page, not just the viewport"},
			&cli.BoolFlag{Name: "labels", Usage: "draw each element's uid from the last extract on the image"},
		},
		func(c *cli.Context) error {
			o.Output = c.String("output")
			if o.Output == "" {
				o.Output = "screenshot-" + env.Now().Format("20060102-150405.000") + ".jpg"
			}
			o.FullPage, o.Labels = c.Bool("full-page"), c.Bool("labels")
			if err := o.read(c, env); err != nil {
				return err
			}
			return runWith(o, runF, runScreenshot)
		})
}

func runScreenshot(o *screenshotOptions) error {
	a := protocol.Screenshot(o.FullPage)
	a.Labels = o.Labels
	if o.JSON {
		// --json prints the full result, dataUrl included, and writes no file.
		return o.runAction(a, nil)
	}
	return o.runAction(a, func(res json.RawMessage) error {
		var r protocol.ScreenshotResult
		if err := json.Unmarshal(res, &r); err != nil {
			return err
		}
		data, err := decodeDataURL(r.DataURL)
		if err != nil {
			return err
		}
		if err := os.WriteFile(o.Output, data, 0o644); err != nil {
			return err
		}
		fmt.Fprintln(o.env.Stdout, o.Output)
		return nil
	})
}

// decodeDataURL returns the bytes of a base64 data URL.
func decodeDataURL(u string) ([]byte, error) {
	_, b64, ok := strings.Cut(u, ";base64,")
	if !ok {
		return nil, fmt.Errorf("screenshot result is not a base64 data URL")
	}
	return base64.StdEncoding.DecodeString(b64)
}
