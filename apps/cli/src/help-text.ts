/** The help of each command, keyed by command name; `""` is the top-level help. */
export const HELP_TEXT: Readonly<Record<string, string>> = {
  "": `arbor: chat with a model in a session tree you can resume, branch and export.

Usage
  arbor [options]                 interactive chat (a new session unless -c or -s)
  arbor --agent agents/main.md    interactive chat where every prompt runs an agent file
  arbor -p "prompt"               print mode: the answer on stdout, then exit
  arbor "fix the tests"           the same (a prompt of several words in place of a command)
  echo "prompt" | arbor           the same, the prompt from stdin
  arbor run [options] "prompt"    one prompt for scripts; streams as it arrives
  arbor sessions <command>        list, show, delete, title, regenerate-title, export
  arbor import <file|dir>         import Claude Code, Codex or opencode sessions
  arbor export <id> --format f    write a session as html, md (Markdown) or jsonl (pi)
  arbor demo                      an offline session against a built-in fake server
  arbor rewind [entry]            bring the conversation and/or the files back to an entry
  arbor checkpoints [session]     the checkpoints of a session and the files each changed
  arbor fork [--worktree dir]     fork a session, the files of an entry in a git worktree
  arbor acp                       serve the Agent Client Protocol on stdio (editors)
  arbor help <command>            help for one command

Options
  -c, --continue          resume the newest session of this directory
  -r, --resume            pick a session of this directory to resume (type to search)
  -s, --session <id|path> resume a session by id, id prefix or file (pi's files too)
      --agent <file>      run every prompt on an agent file (Markdown with YAML front
                          matter) with its advisors, router destinations, handoff and
                          sub-agents (examples/agents/); the session remembers the file,
                          so -c, -r and -s resume on it. A file that does not load
                          (missing, unknown key, cycle) stops arbor with exit code 2
      --provider <name>   a configured provider (openai, anthropic, or a config name)
  -m, --model <id>        the model to use, e.g. gpt-4.1, claude-sonnet-4-6 or
                          provider/model (anthropic/claude-sonnet-4-6)
      --json              (run) print the result object as JSON
      --approval <mode>   what the model may do without asking: ask (default: file
                          edits and commands need a yes), auto-edit (edits allowed,
                          commands asked), sandbox (edits allowed, commands run
                          in bubblewrap without asking; leaving it is asked) or
                          yolo (nothing asked); "approval" in the config
Print mode (-p, and arbor run)
  -p, --print             one prompt, then exit (a piped stdin, a pipe or a file, is
                          added to the prompt)
      --output-format <f> text (default: each answer once accepted, so an answer a
                          stream rule retries never shows its discarded start), json
                          (one result object) or stream-json (one JSON event per line,
                          the events the server streams, then a "result" line)
      --system-prompt <t> replace the configured system prompt for this run
      --append-system-prompt <t>  add text to the system prompt for this run
      --thinking <level>  off, minimal, low, medium or high for this run
      --max-turns <n>     stop after n turns (exit code 3 without an answer)
      --no-session        keep the session in memory; nothing is stored
      --trust-project     load this project's .arbor/extensions without asking
                          (also ARBOR_TRUST_PROJECT=1); see "Project extensions"
      --debug             print stack traces of errors
  -h, --help              this help
  -v, --version           the version

Providers
  Set OPENAI_API_KEY, ANTHROPIC_API_KEY, or OPENAI_BASE_URL (Ollama, vLLM, llama.cpp),
  or write ~/.arbor/config.json ($ARBOR_HOME/config.json when ARBOR_HOME is set):
  {
    "defaultProvider": "ollama",
    "providers": {
      "ollama": { "api": "openai-chat", "baseURL": "http://127.0.0.1:11434/v1", "model": "llama3.2" },
      "claude": { "api": "anthropic-messages", "apiKeyEnv": "ANTHROPIC_API_KEY" }
    },
    "thinking": "off"
  }

Agent files in the app
  The transcript shows each child run as it happens: "◆ advisor", "↪ routed to",
  "⇢ handoff to", "⚙ sub-agent" with its agent path, running, then its outcome, tokens
  and cost; each answer is headed by the agent giving it. Esc aborts the whole run,
  every child included. In /tree a child line opens its session read-only with Enter
  (its own children open the same way, ↑/↓ to choose); Esc goes back one level.

Project extensions
  A project's .arbor/extensions/ run as you. The app asks once per project and
  remembers the answer (trusted-projects.json under ~/.arbor, or $ARBOR_HOME); it asks
  again when they change. arbor run skips them unless the project is trusted or
  --trust-project is given. Extensions in ~/.arbor/extensions always load.
`,
  run: `arbor run: send one prompt, stream the answer to stdout, exit.

Usage
  arbor run [options] "prompt"
  echo "prompt" | arbor run [options]
  arbor run --agent agents/main.md [options] "prompt"

Options
  --agent <file>          run an agent file (Markdown with YAML front matter) with its
                          advisors, router destinations, handoff and sub-agents; each
                          agent works in a session of its own, children's progress on
                          stderr. Ctrl+C asks every agent for a final answer, a second
                          Ctrl+C stops them. Examples: examples/agents/
  --json                  print the result object (success, reason, turns, usage, cost,
                          sessionFile, text) instead of the streamed answer
  -c, --continue          continue the newest session of this directory
  -s, --session <id|path> continue a given session
  --provider, --model     choose the model (see "arbor --help")
  --approval <mode>       ask (default), auto-edit, sandbox or yolo. Without a terminal a tool
                          call that needs a yes fails (the model is told why) instead
                          of waiting; "always" answers are kept in approvals.json
  --trust-project         load the project's .arbor/extensions (skipped, with a note,
                          in a project you have not trusted); or ARBOR_TRUST_PROJECT=1

Exit codes
  0    the answer finished
  1    the run failed for another reason (printed on stderr)
  2    a wrong command line
  3    the run reached its turn limit without an answer
  4    the provider rejected the API key or the account is out of quota
  130  you stopped the run (Ctrl+C / SIGINT); the partial answer is stored
`,
  sessions: `arbor sessions: manage stored sessions.

Usage
  arbor sessions list [--here]             sessions of all directories (--here: this
                                           one's), newest first, after a header row
  arbor sessions show <id> [--json]        the tree of a session, with labels
  arbor sessions delete <id> [--yes]       delete a session file (asks unless --yes)
  arbor sessions title <id> [text]         print the title, or set it to text
  arbor sessions regenerate-title <id>     ask the model for a new title
  arbor sessions export <id> [out.html]    write a self-contained HTML page
                                           (an existing file only with --force;
                                           --with-children embeds the sessions of
                                           the agents an orchestration started)

<id> is a session id, a unique prefix of one, or a session file path (pi's too).
delete only removes session files of Arbor's store.
`,
  import: `arbor import: bring other tools' sessions into Arbor.

Usage
  arbor import <file|dir> [--from claude-code|codex|opencode|auto] [--dry-run] [--json]
  arbor import --from claude-code          the tool's default folder (~/.claude/projects,
                                           ~/.codex/sessions, ~/.local/share/opencode)

Reads Claude Code session files, Codex rollout files, and opencode's sessions from its
data folder: its SQLite database opencode.db (opencode 1.2 and later, up to 512 MiB) or
its older storage folder. A file or a whole folder, with a progress bar. Each
session keeps its tree (branches, sidechains as child sessions, compactions, tool calls
and results, model changes) and records where it came from. Lines no reader understands
are kept as raw entries and counted. Importing again changes nothing; a source that grew
adds what it gained; a session you continued in Arbor is never overwritten. In a file
changed in the last minute, an answer still being written is held back (the summary says
so) and stored by a later import, so following a live log only ever appends.
The summary lists the sessions, their entries and raw lines, and the skipped files with
the reason. --dry-run reads and reports, and writes nothing.
`,
  export: `arbor export: write a session to a file.

Usage
  arbor export <id> [out] [--format html|md|jsonl] [--force] [--with-children]

  html    a self-contained page of the whole tree (the default), as arbor sessions
          export writes it: custom messages through the renderers of the project's
          extensions, and with --with-children the sessions of the agents an
          orchestration started embedded in the page
  md      a Markdown transcript: the current branch, then every other branch after
          the point where it forks
  jsonl   a pi session file that pi opens on the same branch with the same context

<id> is a session id, a unique prefix of one, or a session file path. An existing file is
replaced only with --force.
`,
  acp: `arbor acp: Arbor as an Agent Client Protocol agent for editors (Zed, JetBrains,
Neovim, Emacs).

Usage
  arbor acp [--provider <name>] [-m <model>] [--approval <mode>] [--trust-project]

Speaks ACP (JSON-RPC over stdin/stdout) until the editor closes stdin; the log goes to
stderr. Runs on your configuration as arbor does: providers, stream rules, extensions,
MCP servers (and the editor's), project instructions, approvals. Each editor session is
an Arbor session: list, load (the conversation replayed), resume and fork work across
restarts. Approvals are permission requests (allow/reject, once/always); the approval
modes (ask, auto-edit, yolo) are the session's modes. When the editor offers them, files
are read and written through the editor (its unsaved buffers) and commands run in its
terminal. Slash commands: /tree [id], /fork [id], /label [id] text, /compact, /model
[provider/model], and the extensions'.
ARBOR_ACP_PERMISSION_TIMEOUT_MS: how long a permission request waits (default 300000);
no answer counts as a reject.
`,
  demo: `arbor demo: run a real session offline.

Usage
  arbor demo

Starts Arbor's fake OpenAI-compatible server on 127.0.0.1 and talks to it through the
real OpenAI adapter: a tool call, a stream rule interrupting and retrying an answer, a
branch, a compaction and an HTML export whose path is printed at the end. Needs no
configuration and no network; the session is stored with your other sessions.
`,
  rewind: `arbor rewind: go back to an entry of a session, the files too.

Usage
  arbor rewind [--code|--conversation|--both] [--dry-run] [-s <session>] [entry]

Works on the newest session of this folder (as -c picks it) unless -s names one. The
entry is an id or a unique prefix of one (arbor checkpoints lists the checkpoints); without
it, the state before the session's last prompt.
  --both          (default) move the conversation there and bring the files back
  --code          bring the files back only; the conversation stays where it is
  --conversation  move the conversation only; the files stay as they are
  --dry-run       print what would change; change nothing

Every path changed is printed. The files as they were are checkpointed first, so a rewind
can be undone: the last line names the entry to rewind to. Files no checkpoint knows
(ignored, too large, unknown) are never deleted or overwritten. A session open in another
arbor cannot be rewound until it is closed there.
`,
  fork: `arbor fork: continue a session from an entry in a new session.

Usage
  arbor fork [-s <session>] [--worktree <dir>] [entry]

Copies the path from the start to the entry (default: the leaf) of the newest session of
this folder (or -s's) into a new session and prints its id. With --worktree, <dir> (which
must not exist) becomes a git worktree of this repository (a plain folder outside a git
repository) holding the files as they were at that entry, so two branches can be worked on
side by side: cd <dir> && arbor -s <new id>.
`,
  checkpoints: `arbor checkpoints: the checkpoints of a session.

Usage
  arbor checkpoints [session]

Lists the checkpoint entries of the newest session of this folder (or the session named),
oldest first: the entry id, its time, why it was taken (before_tool, after_tool,
before_rewind, rewind) and the files changed since the checkpoint before it.
`,
};

/** The help text of a command, or undefined when there is no such command. */
export function helpFor(command: string | undefined): string | undefined {
  return HELP_TEXT[command ?? ""];
}
