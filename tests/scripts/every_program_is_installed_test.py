"""scripts/install-dependencies installs every program and Python module that the project's scripts call.

A fresh Debian machine has only Debian's `required` packages (coreutils, grep, sed, util-linux, ...); whatever
else a script runs must come from install-dependencies, or the script fails on the first machine that lacks
it, as the emulated cluster once did without `ping`. This test reads every script in the repository (shell,
the Python they embed, and Python files), finds the programs they run and the modules they import, and
checks each against install-dependencies' tables:

- a command that is a program of a package that is not `required` must be in the program table;
- a command that is not installed here must be in the table too: that is how a missing entry looks on a
  fresh machine, where the program is absent;
- a Python module that is neither the standard library nor the project's own must be in the module table;
- every entry of the tables is called somewhere, so the tables do not rot.

The scan reads commands in command position, after wrappers (exec, timeout, env, sudo, `ip netns exec`, ...),
inside $(...), backticks and `sh -c '...'`, the programs CMake looks for, and the first word of a command list
Python hands to subprocess. It cannot see a program named only through a variable or an array ("$python",
realtime=(chrt ...)); the scripts that do so check those programs themselves (`cluster up`).
"""
import os
import re
import shutil
import subprocess
import sys
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
INSTALL = os.path.join(REPO, "scripts", "install-dependencies")
SEARCH_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/local/sbin", "/usr/sbin", "/sbin"])

# Programs that come with a capability rather than a Debian package: the NVIDIA driver's and the CUDA
# toolkit's (scripts/validate-gpu probes a GPU machine for them), and sudo, which install-dependencies uses
# only where it is not run as root.
CAPABILITY_PROGRAMS = {"nvidia-smi", "nvcc", "sudo"}

SHELL_WORDS = set("""
    if then else elif fi for while until do done case esac in function select time coproc
    alias bg bind break builtin caller cd command compgen complete continue declare dirs disown echo enable
    eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd
    printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap true
    type typeset ulimit umask unalias unset wait [ [[ ]] . :
""".split())
# Commands that run the command after them: how many arguments of their own follow their options, and
# which of their options take a value.
WRAPPERS = {"exec": 0, "sudo": 0, "env": 0, "nice": 0, "timeout": 1, "chrt": 1, "unshare": 0, "command": 0,
            "xargs": 0, "nohup": 0, "stdbuf": 0, "time": 0}
OPTIONS_WITH_A_VALUE = {"timeout": {"-s", "-k", "--signal", "--kill-after"}, "nice": {"-n", "--adjustment"},
                        "xargs": {"-n", "-I", "-P", "-L", "-d", "-s", "-a", "-E"}, "sudo": {"-u", "-g", "-C", "-D", "-h", "-p"},
                        "env": {"-u", "-C", "-S"}, "stdbuf": {"-i", "-o", "-e"}, "exec": {"-a"}}
SHELL_SUBSTITUTES = ("sh -c", "bash -c", "dash -c")


def table(kind):
    output = subprocess.run([INSTALL, "--list", kind], check=True, capture_output=True, text=True).stdout
    return output.split()


def cmake_programs():
    """The programs CMake looks for (find_program(VAR NAMES a b ...)): the tests run them."""
    programs = {}
    files = subprocess.run(["git", "-C", REPO, "ls-files", "--cached", "--others", "--exclude-standard"], check=True,
                           capture_output=True, text=True).stdout.split()
    for name in files:
        if os.path.basename(name) != "CMakeLists.txt":
            continue
        with open(os.path.join(REPO, name), encoding="utf-8") as handle:
            for match in re.finditer(r"find_program\(\s*\w+\s+NAMES\s+([^)]*?)(?:\s+(?:PATHS|HINTS|REQUIRED|NO_DEFAULT_PATH)\b|\))",
                                     handle.read()):
                for program in match.group(1).split():
                    programs.setdefault(program, set()).add(name)
    return programs


def project_scripts():
    """Every file of the working tree (tracked, or new and not ignored) that is a shell or Python script, by its
    shebang or its name."""
    files = subprocess.run(["git", "-C", REPO, "ls-files", "--cached", "--others", "--exclude-standard"], check=True,
                           capture_output=True, text=True).stdout.split()
    scripts = []
    for name in files:
        path = os.path.join(REPO, name)
        if name.startswith("analysis/results/") or not os.path.isfile(path):
            continue
        with open(path, "rb") as handle:
            first = handle.readline()
        if name.endswith((".py", ".sh")) or first.startswith(b"#!"):
            language = "python" if name.endswith(".py") or b"python" in first else "shell"
            scripts.append((name, language))
    return scripts


def python_programs(text):
    """What Python code runs: the first word of a command list given to subprocess, of a command string
    (os.system, shell=True), or a program it looks up. A list built first and passed by name is not seen."""
    text = re.sub(r"#[^\n]*", "", text)
    calls = re.findall(r"""\b(?:subprocess\.\w+|Popen|check_output|check_call|call|run)\(\s*\[\s*["']([^"']+)["']""", text)
    calls += re.findall(r"""\b(?:os\.system|os\.popen|subprocess\.\w+)\(\s*[fr]?["']([^"'\s]+)""", text)
    calls += re.findall(r"""shutil\.which\(\s*["']([^"']+)["']""", text)
    return {os.path.basename(call) for call in calls if not call.startswith("-")}


def python_imports(text):
    modules = set()
    for match in re.finditer(r"^[ \t]*(?:import\s+([\w.]+(?:\s*,\s*[\w.]+)*)|from\s+([\w.]+)\s+import)", text, re.M):
        names = match.group(1) or match.group(2)
        # `from . import x` is the package's own module: no top-level name to look for.
        modules.update(name.strip().split(".")[0] for name in names.split(",") if not name.strip().startswith("."))
    return modules


def split_heredocs(text):
    """The shell text without its here-documents, and the here-documents (the Python the scripts embed)."""
    shell, bodies = [], []
    lines = iter(text.splitlines())
    for line in lines:
        shell.append(line)
        marker = re.search(r"(?<!<)<<(?!<)-?\s*['\"]?([A-Za-z_]\w*)['\"]?", line)  # not a <<< here-string
        if marker and not line.lstrip().startswith("#"):
            body = []
            for inner in lines:
                if inner.strip() == marker.group(1):
                    break
                body.append(inner)
            bodies.append("\n".join(body))
    return "\n".join(shell), bodies


def read_shell(text):
    """Shell text as the scan sees it: comments removed, each quoted string and each $(...) replaced by the
    word QUOTED, the commands of each $(...) moved to lines of their own at the end (so that they are scanned
    as commands), and the contents of the quoted strings (for `python3 -c '...'`)."""
    reader = ShellReader(text)
    out = reader.read(0, len(text))
    # What `sh -c '...'` runs is shell too: read it as such.
    for script in reader.shell_strings:
        inner, strings = read_shell(script)
        reader.substitutions.append(inner)
        reader.strings += strings
    return out + "\n" + "\n".join(reader.substitutions), reader.strings


class ShellReader:
    def __init__(self, text):
        self.text, self.substitutions, self.strings, self.shell_strings = text, [], [], []

    def read(self, i, end):
        """The text from i to end, as read_shell describes it."""
        text, out = self.text, []
        while i < end:
            c = text[i]
            if c in "'\"":
                close = self.closing_quote(i)
                contents = self.quoted(i + 1, close) if c == '"' else text[i + 1:close]
                self.strings.append(contents)
                if "".join(out).rstrip().endswith(SHELL_SUBSTITUTES):
                    self.shell_strings.append(contents)
                out.append("QUOTED")
                i = close + 1
            elif c == "#" and (i == 0 or text[i - 1] in " \t\n;(|&"):
                while i < end and text[i] != "\n":
                    i += 1
            elif c == "\\" and i + 1 < end:
                out.append(" " if text[i + 1] == "\n" else text[i + 1])
                i += 2
            elif text.startswith("$(", i) and not text.startswith("$((", i):
                close = self.closing_parenthesis(i + 2)
                self.substitutions.append(self.read(i + 2, close))
                out.append("QUOTED")
                i = close + 1
            elif c == "`":
                close = text.find("`", i + 1)
                close = n if close < 0 else close
                self.substitutions.append(self.read(i + 1, close))
                out.append("QUOTED")
                i = close + 1
            else:
                out.append(c)
                i += 1
        return "".join(out)

    def quoted(self, i, end):
        """The contents of a double-quoted string; its substitutions are recorded as commands."""
        text, out = self.text, []
        while i < end:
            if text.startswith("$(", i) and not text.startswith("$((", i):
                close = self.closing_parenthesis(i + 2)
                self.substitutions.append(self.read(i + 2, close))
                i = close + 1
            else:
                out.append(text[i])
                i += 1
        return "".join(out)

    def closing_quote(self, i):
        text, quote, i = self.text, self.text[i], i + 1
        while i < len(text) and text[i] != quote:
            if quote == '"' and text[i] == "\\":
                i += 1
            elif quote == '"' and text.startswith("$(", i) and not text.startswith("$((", i):
                i = self.closing_parenthesis(i + 2)
            i += 1
        return min(i, len(text))

    def closing_parenthesis(self, i):
        """The ")" that closes a "$(" whose contents start at i."""
        text, depth = self.text, 1
        while i < len(text):
            if text[i] in "'\"":
                i = self.closing_quote(i)
            elif text[i] == "(":
                depth += 1
            elif text[i] == ")":
                depth -= 1
                if depth == 0:
                    return i
            i += 1
        return len(text)


def without_arithmetic_arrays_and_case_patterns(text):
    text = re.sub(r"\(\((?:[^()]|\([^()]*\))*\)\)", " ", text)                       # (( i++ )), $(( n + 1 ))
    text = re.sub(r"\b[A-Za-z_]\w*\+?=\((?:[^()]|\n)*?\)", " ", text)                  # name=( array items )
    text = re.sub(r"\[\[.*?\]\]", " true ", text)                                       # [[ tests ]]: no commands
    return re.sub(r"(^|;;|\bin\b)([ \t]*)[-\w*.|+?\[\]]+\)", r"\1\2", text, flags=re.M)  # case patterns


def shell_commands(text):
    """The words in command position: first in a pipeline element, or after a wrapper such as exec,
    timeout N or `ip netns exec NS`."""
    commands = set()
    for segment in re.split(r"&&|\|\||[;|&(){}\n]|\b(?:then|do|else|if|elif|while|until)\b|!", text):
        words = segment.split()
        while words and re.match(r"^[A-Za-z_]\w*(\[[^]]*\])?\+?=", words[0]):
            words.pop(0)  # assignments before a command
        if words and words[0] in ("local", "export", "declare", "readonly"):
            continue
        while words:
            word = words.pop(0)
            if word.startswith("/") and re.match(r"^/(usr/)?(local/)?s?bin/", word):
                word = os.path.basename(word)  # /usr/sbin/ip is ip
            if word in WRAPPERS:
                while words and (words[0].startswith("-") or (word == "env" and "=" in words[0])):
                    option = words.pop(0)
                    if word == "command":
                        break
                    if option in OPTIONS_WITH_A_VALUE.get(word, ()) and words:
                        words.pop(0)
                del words[:WRAPPERS[word]]
                continue
            if word == "ip" and words[:2] == ["netns", "exec"]:
                del words[:3]
                continue
            if re.match(r"^\$\w+$", word):
                continue  # `$sudo apt-get`: the command follows a variable that may be empty
            commands.add(word)
            break
    return commands


def shell_functions(text):
    return set(re.findall(r"^\s*(?:function\s+)?([A-Za-z_][\w-]*)\s*\(\)", text, re.M))


def sourced_files(text):
    """The project files a shell script sources (`source "$repo/analysis/x.sh"`), as paths from the root: the
    functions they define are the script's own, not programs."""
    return set(re.findall(r"^\s*(?:source|\.)\s+\"?\$\{?repo\}?/([\w./-]+)\"?", text, re.M))


def package_of(program):
    """The Debian package that installed `program`, None if it is not installed here."""
    path = shutil.which(program, path=SEARCH_PATH)
    if not path:
        return None
    candidates = {path, os.path.realpath(path)}
    # /bin and /usr/bin are one directory on Debian 12, and dpkg knows only one of the two names.
    for name in list(candidates):
        for prefix, other in (("/usr/bin/", "/bin/"), ("/bin/", "/usr/bin/"), ("/usr/sbin/", "/sbin/"), ("/sbin/", "/usr/sbin/")):
            if name.startswith(prefix):
                candidates.add(other + name[len(prefix):])
    for candidate in sorted(candidates):
        result = subprocess.run(["dpkg-query", "-S", candidate], capture_output=True, text=True)
        if result.returncode == 0:
            return result.stdout.split(":")[0].strip()
    return "(a file of no package: " + path + ")"


def is_required(package):
    result = subprocess.run(["dpkg-query", "-W", "-f=${Priority}", package], capture_output=True, text=True)
    return result.stdout.strip() == "required"


def looks_like_a_program(word):
    return re.match(r"^[A-Za-z][A-Za-z0-9_.+-]*$", word) is not None and word != "QUOTED"


class EveryProgramIsInstalledTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.programs = set(table("programs"))
        cls.modules = set(table("python-modules"))
        cls.scripts = project_scripts()
        cls.commands = {}  # program -> the scripts that run it
        cls.imports = {}   # module -> the scripts that import it
        for name, language in cls.scripts:
            with open(os.path.join(REPO, name), encoding="utf-8") as handle:
                text = handle.read()
            pythons = [text] if language == "python" else []
            commands = set()
            if language == "shell":
                shell, heredocs = split_heredocs(text)
                bare, strings = read_shell(shell)
                bare = without_arithmetic_arrays_and_case_patterns(bare)
                pythons += heredocs + strings  # python3 - <<'EOF' ... and python3 -c '...'
                functions = shell_functions(bare)
                for sourced in sourced_files(shell):
                    with open(os.path.join(REPO, sourced), encoding="utf-8") as library:
                        functions |= shell_functions(library.read())
                commands = {c for c in shell_commands(bare) - functions if looks_like_a_program(c)}
            for body in pythons:
                commands |= python_programs(body)
                for module in python_imports(body):
                    cls.imports.setdefault(module, set()).add(name)
            for command in commands:
                cls.commands.setdefault(command, set()).add(name)
        for program, where in cmake_programs().items():
            cls.commands.setdefault(program, set()).update(where)

    def where(self, table, key):
        return ", ".join(sorted(table[key]))

    def test_the_scan_finds_what_the_emulated_cluster_is_known_to_run(self):
        # If the scan stopped seeing these, the other tests would pass for nothing.
        for program in ("ping", "ip", "tc", "ethtool", "sysctl", "mpirun", "python3"):
            self.assertIn("runtime/emulated_cluster/cluster", self.commands.get(program, set()), program)
        self.assertIn("analysis/compare_plot.py", self.imports.get("matplotlib", set()))
        self.assertIn("analysis/results_input.py", self.imports.get("jsonschema", set()))

    def test_every_command_outside_debians_required_packages_is_listed(self):
        unlisted = []
        for command in sorted(self.commands):
            if command in self.programs or command in SHELL_WORDS or command in CAPABILITY_PROGRAMS:
                continue
            package = package_of(command)
            if package is None:
                unlisted.append(f"{command} (not installed here), run by {self.where(self.commands, command)}")
            elif not is_required(package):
                unlisted.append(f"{command} (package {package}), run by {self.where(self.commands, command)}")
        self.assertEqual(unlisted, [], "add these to the program table of scripts/install-dependencies")

    def test_every_python_module_outside_the_standard_library_is_listed(self):
        local = {os.path.splitext(os.path.basename(name))[0] for name, _ in self.scripts}
        local |= {os.path.basename(os.path.dirname(name)) for name, _ in self.scripts if name.endswith("/__init__.py")}
        unlisted = [f"{module}, imported by {self.where(self.imports, module)}" for module in sorted(self.imports)
                    if module not in sys.stdlib_module_names and module not in local and module not in self.modules]
        self.assertEqual(unlisted, [], "add these to the python-modules table of scripts/install-dependencies")

    def test_every_entry_of_the_tables_is_used(self):
        unused = sorted(p for p in self.programs if p not in self.commands)
        unused += sorted(m for m in self.modules if m not in self.imports)
        self.assertEqual(unused, [], "nothing runs these: drop them from scripts/install-dependencies")

    def test_the_listed_programs_and_modules_are_installed_here(self):
        # scripts/test runs install-dependencies first: a listed program that is still missing is listed
        # under the wrong package.
        missing = [p for p in sorted(self.programs) if not shutil.which(p, path=SEARCH_PATH)]
        for module in sorted(self.modules):
            if subprocess.run(["/usr/bin/python3", "-c", f"import {module}"], capture_output=True).returncode != 0:
                missing.append(f"python module {module}")
        self.assertEqual(missing, [], "scripts/install-dependencies lists these, but they are not installed")


if __name__ == "__main__":
    unittest.main()
