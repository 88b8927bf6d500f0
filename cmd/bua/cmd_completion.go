package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

func init() { registerWhole(newCompletionCommand, "completion") }

// Shell glue for urfave/cli's completion protocol: the shell re-runs the
// words typed so far with --generate-bash-completion and offers the lines
// bua prints that start with the word being typed. When that word starts
// with "-", a "-" goes along: then urfave/cli offers every flag of the
// command (the global ones included), where it otherwise offers
// subcommands; the word itself could be "--", after which urfave/cli would
// run the command instead (run refuses that). fish's script, from
// urfave/cli, lists every command's flags itself.
const bashCompletion = `# bua completion for bash: eval "$(bua completion bash)"
_bua_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}"
  local -a typed=("${COMP_WORDS[@]:0:$COMP_CWORD}")
  [[ "${cur}" == -* ]] && typed+=("-")
  local candidates
  candidates=$("${typed[@]}" --generate-bash-completion 2>/dev/null)
  COMPREPLY=($(compgen -W "${candidates}" -- "${cur}"))
}
complete -o default -o bashdefault -F _bua_complete bua
`

const zshCompletion = `#compdef bua
# bua completion for zsh: eval "$(bua completion zsh)"
_bua() {
  local -a typed candidates
  typed=(${words[@]:0:$((CURRENT-1))})
  [[ "${words[CURRENT]}" == -* ]] && typed+=("-")
  candidates=("${(@f)$(${typed[@]} --generate-bash-completion 2>/dev/null)}")
  _describe 'bua' candidates
}
compdef _bua bua
`

func newCompletionCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Category:  catSetup,
		Usage:     "print shell completion for bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: "bash: eval \"$(bua completion bash)\"   (in ~/.bashrc)\n" +
			"zsh:  eval \"$(bua completion zsh)\"    (in ~/.zshrc)\n" +
			"fish: bua completion fish > ~/.config/fish/completions/bua.fish",
		Action: func(c *cli.Context) error {
			switch c.Args().First() {
			case "bash":
				fmt.Fprint(env.Stdout, bashCompletion)
			case "zsh":
				fmt.Fprint(env.Stdout, zshCompletion)
			case "fish":
				s, err := c.App.ToFishCompletion() // every command: registerWhole
				if err != nil {
					return err
				}
				fmt.Fprint(env.Stdout, s)
			default:
				return usageError("completion takes bash, zsh or fish")
			}
			return nil
		},
	}
}
