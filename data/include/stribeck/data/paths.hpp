#pragma once
// Paths of inputs and outputs: what a path is (a regular file, a directory,
// a device), where an output really goes (symbolic links followed), and the
// names of the files written beside an output (its temporaries, its
// checkpointed partial file), cut to fit NAME_MAX.
#include <cstddef>
#include <string>

#include "stribeck/data/error.hpp"

namespace stribeck::data {

// Refuses, before any work is done, an output path that cannot take a
// file: empty, a directory, or an existing file that is not a regular file
// (a device such as /dev/null or a pipe: renaming a result over it would
// replace it). Throws InputError naming the path.
void check_output_path(const std::string& path);

// Refuses an input path that is not a regular file: a directory, or a pipe
// or device (the readers open a file twice, to sniff its format and then to
// read it, and would hang on a FIFO or see a pipe empty). Throws InputError
// naming the path; a missing file is left to the reader's own message.
void check_input_path(const std::string& path);

// What a file that is not a regular one is, for messages: "a directory",
// "a FIFO (named pipe)", "a character device", "a block device", "a socket"
// ("" for a regular file or a missing path).
std::string describe_non_regular(const std::string& path);

// Where an output really goes: `target` itself, or, when it is a symbolic
// link, the file the chain of links ends at (which may not exist yet), so
// that a result is written through the link and the link stays. Throws
// InputError for a loop of links.
std::string resolve_output(const std::string& target);

// NAME_MAX of Linux's file systems: no file name may be longer.
constexpr size_t kFileNameMax = 255;

// `path` with its file name cut so that `room` more bytes fit within
// kFileNameMax: the cut part replaced by "~" and a hash of the whole name,
// the same in every run, so a later run finds what an earlier one named.
// Unchanged when it fits. temporary_stem, partial_path and a CSV's sidecar
// name their files beside an output with it.
std::string name_with_room(const std::string& path, size_t room);

// The name of a temporary of `target` (a resolved output) without its
// 6-character unique part: "DIR/NAME.tmp.". When NAME is so long (over 244
// bytes) that NAME.tmp.XXXXXX would pass NAME_MAX (255), NAME is cut and
// the cut part replaced by a hash of the whole name ("DIR/PREFIX~HASH.tmp."),
// the same in every run, so a later run still finds the leftovers.
std::string temporary_stem(const std::string& target);

// The checkpointed partial file of a streamed output (a sweep's, an
// ensemble's, a batch fit's, a merge's): OUT.partial, its lock
// OUT.partial.lock (PartialOwner) and its journal files
// OUT.partial.journal.new etc. (journal_driver.cpp). For a NAME so long
// (over 235 bytes) that NAME.partial.journal.new would pass NAME_MAX, NAME
// cut with a hash of the whole (as temporary_stem), the same in every run,
// so --resume finds it.
std::string partial_path(const std::string& output);

}  // namespace stribeck::data
