#pragma once
// An HDF5 file driver whose flushes are atomic, for checkpointed files
// (results_stream.cpp's OUT.partial).
//
// libhdf5 1.10 has no journal: a flush writes the superblock, object
// headers, B-tree nodes and heaps one by one, in place, and a process killed
// part way through leaves some of them new and some old, which it cannot
// read back (a checkpoint then fails to resume: "wrong B-tree signature",
// "bad local heap signature"). This driver keeps every write that would
// change bytes the last flush left in memory (whole pages), and a flush
// commits them as a redo journal: the pages go to PATH.journal.new, which is
// renamed PATH.journal, then into PATH, then the journal is removed. Bytes
// past the end of the last flush's file are nothing the flushed file refers
// to, so they are written at once (a column's new chunks: the bulk of the
// data). Opening a file with journal_replay first (PATH.journal complete:
// its pages are written again; PATH.journal.new: dropped) gives the state of
// the last flush whatever the moment the writer died.
#include <hdf5.h>

#include <string>
#include <vector>

namespace stribeck::data::h5 {

// A file access property list (closed by the caller) for the driver.
hid_t journaled_access();
// A new file's writes stay in memory, its flushes commit nothing, until
// this is called (a checkpointed file: before the flush of its first
// checkpoint), so that the file on disk is empty or holds a checkpoint.
// False when `file` is not the driver's.
bool journal_release(hid_t file);
// From now on the file keeps, in PATH.undo, what the next commits change as
// it was before them, so that journal_replay can take them back: the final
// commit of a checkpointed file (its checkpoint removed), until the file is
// renamed into place. False when `file` is not the driver's.
bool journal_keep_undo(hid_t file);
// Brings PATH to the state of its last checkpoint: finishes the commit a
// dead writer left (PATH.journal written: its pages go into PATH), drops a
// journal never completed, and takes back commits kept in PATH.undo.
// Throws InputError when a journal cannot be applied.
void journal_replay(const std::string& path);
// PATH's journal files, and their removal (a new file of that name starts
// clean).
std::vector<std::string> journal_files(const std::string& path);
void journal_remove(const std::string& path);

}  // namespace stribeck::data::h5
