package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

func init() {
	registerWhole(func(env *Env) *cli.Command { return newCompletionCommand(env, nil) }, "completion")
}

// completionOptions is `bua completion`'s command line.
type completionOptions struct {
	globalOptions
	// Shell is the shell named: bash, zsh, fish or powershell.
	Shell string
	// App is the whole app, every command in it: fish's script lists them.
	App *cli.App
}

// Shell glue for urfave/cli's completion protocol: the shell re-runs the
// words typed so far with --generate-bash-completion and offers the lines
// bua prints that start with the word being typed. When that word starts
// with "-", a "-" goes along: then urfave/cli offers every flag of the
// command (the global ones included), where it otherwise offers
// subcommands; the word itself could be "--", after which urfave/cli would
// run the command instead (run refuses that). After a flag that takes one
// of a fixed set (--wait-until, --role: flagValues), bua offers that set.
// fish's script, from urfave/cli, lists every command's flags itself, and
// bua adds those sets (fishFlagValues); PowerShell's follows bash's
// (powershellCompletion).
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

// powershellCompletion is the same protocol for PowerShell (5.1 and 7,
// Windows, macOS and Linux alike): a native-command completer for bua and
// bua.exe. The words before the one at the cursor are the elements of the
// command's AST that end before that word starts (Extent offsets and
// $cursorPosition both count from the start of the input), a quoted word
// by its value; the completer runs the command as typed with them and
// offers the lines that start with the word, a flag as a ParameterName.
// When it offers nothing, PowerShell completes file names, as bash's -o
// default does.
const powershellCompletion = `# bua completion for PowerShell: bua completion powershell | Out-String | Invoke-Expression
# (for every session: bua completion powershell >> $PROFILE)
Register-ArgumentCompleter -Native -CommandName bua,bua.exe -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  $elements = $commandAst.CommandElements
  $start = $cursorPosition - $wordToComplete.Length
  $typed = @()
  for ($i = 1; $i -lt $elements.Count; $i++) {
    $e = $elements[$i]
    if ($e.Extent.EndOffset -gt $start) { break }
    if ($e -is [System.Management.Automation.Language.StringConstantExpressionAst]) {
      $typed += $e.Value
    } else {
      $typed += $e.Extent.Text
    }
  }
  if ($wordToComplete.StartsWith('-')) { $typed += '-' }
  $candidates = & $commandAst.GetCommandName() @typed --generate-bash-completion 2>$null
  foreach ($c in $candidates) {
    if ($c -and $c.StartsWith($wordToComplete, [System.StringComparison]::Ordinal)) {
      $kind = if ($c.StartsWith('-')) { 'ParameterName' } else { 'ParameterValue' }
      [System.Management.Automation.CompletionResult]::new($c, $c, $kind, $c)
    }
  }
}
`

func newCompletionCommand(env *Env, runF func(*completionOptions) error) *cli.Command {
	o := &completionOptions{}
	return &cli.Command{
		Name:      "completion",
		Category:  catSetup,
		Usage:     "print shell completion for bash, zsh, fish or powershell",
		ArgsUsage: "bash|zsh|fish|powershell",
		Description: "bash: eval \"$(bua completion bash)\"   (in ~/.bashrc)\n" +
			"zsh:  eval \"$(bua completion zsh)\"    (in ~/.zshrc)\n" +
			"fish: bua completion fish > ~/.config/fish/completions/bua.fish\n" +
			"powershell: bua completion powershell | Out-String | Invoke-Expression\n" +
			"            (for every session: bua completion powershell >> $PROFILE)",
		Action: func(c *cli.Context) error {
			o.globalOptions = readGlobals(c, env)
			o.Shell, o.App = c.Args().First(), c.App
			return runWith(o, runF, runCompletion)
		},
	}
}

func runCompletion(o *completionOptions) error {
	env := o.env
	switch o.Shell {
	case "bash":
		fmt.Fprint(env.Stdout, bashCompletion)
	case "zsh":
		fmt.Fprint(env.Stdout, zshCompletion)
	case "powershell":
		fmt.Fprint(env.Stdout, powershellCompletion)
	case "fish":
		s, err := o.App.ToFishCompletion() // every command: registerWhole
		if err != nil {
			return err
		}
		fmt.Fprint(env.Stdout, s+fishFlagValues(o.App))
	default:
		return usageError("completion takes bash, zsh, fish or powershell")
	}
	return nil
}
