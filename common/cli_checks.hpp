#pragma once
// Checks CLI11 runs on option values while it parses, before a command does anything: every number finite
// and in its documented range, every file readable, every output path writable. A failed check ends the
// parse with "--option: what is wrong", which the commands turn into exit status 2.

#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace ddl {

// A real number, finite, in [min, max]: CLI11's own Range lets "nan" through, since NaN compares false.
CLI::Validator finiteIn(double min, double max);

// Text that is valid UTF-8, as a label that goes into JSON must be.
CLI::Validator utf8Text();

// An existing, readable regular file (checkInputFile).
CLI::Validator readableFile();

// A path that a file can be written at (checkOutputFile).
CLI::Validator writableFile();

// After parsing: InvalidArgument naming the later flag where two of `outputs` ({flag, path}; empty paths,
// not asked for, are skipped) name one file, which the later write would overwrite (the results with a plot),
// and naming the flag where one is an input read so far (checkOutputFile): call it once the inputs are read.
void requireDistinctOutputs(const std::vector<std::pair<std::string, std::string>>& outputs);

// Before CLI11 parses `argv`: the first word, where it names no subcommand (nor a file, where
// `firstWordMayBeFile`) but nearly names one, and every option that no command on the way takes, as
// InvalidArgument naming the word with the nearest name ("--algoritm: no such option of ddlsim collective
// (did you mean '--algorithm'?)"). CLI11 itself would say "The following arguments were not expected", or
// take the word for a file.
void requireKnownNames(const CLI::App& app, int argc, const char* const* argv, bool firstWordMayBeFile);

// "--version" on `app`: "PROGRAM VERSION (commit COMMIT)".
void addVersionFlag(CLI::App& app, const std::string& program);

}  // namespace ddl
