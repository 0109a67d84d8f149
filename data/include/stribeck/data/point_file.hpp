#pragma once
// The points of a results file read column by column, a block of rows at a
// time, whatever wrote it: a sweep file (`stribeck sweep`: group `sweep`, or
// the root layout of format_version 1 and 2) or an ensemble (`stribeck
// simulate` with [ensemble]: group `ensemble` with one column per coordinate,
// as a sweep's parameters, and one per metric, `status` among them; files of
// ensemble format_version 1 held the coordinates as one 2-D `points` table)
// or a batch fit (`identify --batch`: group `batch_fit`, its coordinates the
// experiments' operating points, a point ok when its fit converged). What
// reads a whole map of a 1e8-point file (`stribeck map`) keeps only a block
// in memory. Unfinished files
// (OUT.h5.partial) are read up to their last checkpoint.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace stribeck::data {

// The layout of the ensemble group that `stribeck simulate` and `merge`
// write (attribute `format_version`; docs/data-format.md, "Older files").
constexpr int kEnsembleFormatVersion = 2;

class PointFile {
 public:
  // Throws InputError naming the file when it is not a regular file, is
  // neither kind, holds only a top-K table (a sweep with top_k_only), is an
  // ensemble of a format_version newer than this program's, names a
  // coordinate twice, or has a column whose shape or row count disagrees
  // with the file's point count (exactly for a finished file, at least the
  // checkpointed rows for an unfinished one).
  explicit PointFile(const std::string& path);
  ~PointFile();
  PointFile(const PointFile&) = delete;
  PointFile& operator=(const PointFile&) = delete;

  const std::string& path() const;
  const std::string& kind() const;  // "sweep", "ensemble" or "batch-fit"
  // The varying quantities, in the order of the file, and their units ("" where the file has none).
  const std::vector<std::string>& dimensions() const;
  const std::vector<std::string>& dimension_units() const;
  // The metric columns (for an ensemble `status` is one of them).
  const std::vector<std::string>& metrics() const;
  std::string metric_unit(const std::string& metric) const;
  // The points: a finished file's count, an unfinished one's checkpointed rows.
  std::uint64_t rows() const;
  // Index of a dimension or metric by name; throws InputError listing the
  // names there are.
  int dimension_index(const std::string& name) const;
  int metric_index(const std::string& name) const;

  // Rows [first, first + n) of dimension `d` / metric `m` into out (resized to n).
  void read_dimension(int d, std::uint64_t first, std::uint64_t n, std::vector<double>& out) const;
  void read_metric(int m, std::uint64_t first, std::uint64_t n, std::vector<double>& out) const;
  // Whether each row's point ran and finished normally (status 0).
  void read_ok(std::uint64_t first, std::uint64_t n, std::vector<std::uint8_t>& out) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace stribeck::data
