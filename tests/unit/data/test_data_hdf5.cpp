// The generic pieces of the h5 wrapper that the sweep file is built on:
// extendible columns, plain arrays, 64-bit integer and string attributes.
#include <gtest/gtest.h>

#include "temp_dir.hpp"
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"

namespace stribeck {
namespace {

std::string tmp(const std::string& name) {
  return stribeck::test::temp_dir() + "h5_" + std::to_string(::getpid()) + "_" + name;
}

TEST(DataHdf5, ColumnGrowsByAppendAndShrinksByResize) {
  const std::string path = tmp("column.h5");
  {
    data::h5::File f = data::h5::create_file(path);
    data::h5::Dataset c = data::h5::create_column(f.id(), "x", H5T_NATIVE_DOUBLE, 4, path);
    const double a[] = {1, 2, 3}, b[] = {4, 5, 6, 7, 8};
    data::h5::append_column(c, H5T_NATIVE_DOUBLE, a, 3, path);
    data::h5::append_column(c, H5T_NATIVE_DOUBLE, b, 5, path);
    data::h5::append_column(c, H5T_NATIVE_DOUBLE, nullptr, 0, path);  // no-op
    data::h5::Dataset s = data::h5::create_column(f.id(), "s", H5T_NATIVE_UINT8, 4, path);
    const std::uint8_t st[] = {0, 2, 1};
    data::h5::append_column(s, H5T_NATIVE_UINT8, st, 3, path);
    data::h5::close_file(f, path);
  }
  {
    data::h5::File f = data::h5::open_file(path, /*write=*/true);
    EXPECT_EQ(data::h5::read_array<double>(f.id(), "x", H5T_NATIVE_DOUBLE, path),
              (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}));
    EXPECT_EQ(data::h5::read_array<std::uint8_t>(f.id(), "s", H5T_NATIVE_UINT8, path),
              (std::vector<std::uint8_t>{0, 2, 1}));
    data::h5::resize_column(f.id(), "x", 2, path);
    // Unlimited and chunked as promised: the column can still grow.
    const data::h5::Dataset c = data::h5::open_dataset(f.id(), "x", path);
    const double more[] = {9};
    data::h5::append_column(c, H5T_NATIVE_DOUBLE, more, 1, path);
    EXPECT_EQ(data::h5::read_array<double>(f.id(), "x", H5T_NATIVE_DOUBLE, path), (std::vector<double>{1, 2, 9}));
  }
  std::remove(path.c_str());
}

TEST(DataHdf5, ArrayIsReplacedAndMissingOneNamed) {
  const std::string path = tmp("array.h5");
  data::h5::File f = data::h5::create_file(path);
  const std::vector<std::uint64_t> a = {std::numeric_limits<std::uint64_t>::max(), 0, 7};
  data::h5::write_array(f.id(), "i", H5T_NATIVE_UINT64, a.data(), a.size(), path);
  const std::vector<std::uint64_t> b = {42};
  data::h5::write_array(f.id(), "i", H5T_NATIVE_UINT64, b.data(), b.size(), path);  // replaces
  EXPECT_EQ(data::h5::read_array<std::uint64_t>(f.id(), "i", H5T_NATIVE_UINT64, path), b);
  data::h5::write_array(f.id(), "empty", H5T_NATIVE_DOUBLE, nullptr, 0, path);
  EXPECT_TRUE(data::h5::read_array<double>(f.id(), "empty", H5T_NATIVE_DOUBLE, path).empty());
  try {
    data::h5::read_array<double>(f.id(), "nope", H5T_NATIVE_DOUBLE, path);
    FAIL() << "no error for a missing dataset";
  } catch (const data::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'nope'"), std::string::npos) << e.what();
  }
  f.reset();
  std::remove(path.c_str());
}

TEST(DataHdf5, IntegerAndStringAttributesRoundTripExactly) {
  const std::string path = tmp("attr.h5");
  data::h5::File f = data::h5::create_file(path);
  const std::uint64_t big = (std::uint64_t(1) << 63) + 12345;  // not representable as double
  data::h5::write_uint_attribute(f.id(), "u", big, path);
  data::h5::write_int_attribute(f.id(), "i", -(std::int64_t(1) << 60) - 1, path);
  data::h5::write_int_attribute(f.id(), "i", -3, path);  // replaces
  data::h5::write_double_attribute(f.id(), "d", 0.1, path);
  EXPECT_EQ(data::h5::read_uint_attribute(f.id(), "u", path), big);
  EXPECT_EQ(data::h5::read_int_attribute(f.id(), "i", path), -3);
  EXPECT_EQ(data::h5::read_double_attribute(f.id(), "d", path), 0.1);
  // Only the NUL padding is stripped: trailing spaces are part of the value.
  data::h5::write_string_attribute(f.id(), "s", "a b ", path);
  EXPECT_EQ(data::h5::read_string_attribute(f.id(), "s", path), "a b ");
  data::h5::write_string_attribute(f.id(), "e", "", path);
  EXPECT_EQ(data::h5::read_string_attribute(f.id(), "e", path), "");
  f.reset();
  std::remove(path.c_str());
}

TEST(DataHdf5, OpenOrCreateGroupReusesAnExistingGroup) {
  const std::string path = tmp("group.h5");
  data::h5::File f = data::h5::create_file(path);
  {
    data::h5::Group g = data::h5::open_or_create_group(f.id(), "g", path);
    data::h5::write_int_attribute(g.id(), "mark", 1, path);
  }
  data::h5::Group g = data::h5::open_or_create_group(f.id(), "g", path);
  EXPECT_EQ(data::h5::read_int_attribute(g.id(), "mark", path), 1);
  g.reset();
  f.reset();
  std::remove(path.c_str());
}

// read_array (sweep files, results, top-K tables) checks the size a dataset
// claims against what it stores before allocating (found by the fuzz_hdf5
// campaigns: a damaged extent made `report` allocate 1.6 to 6 GB, or fill
// 4 GB of fill values for two minutes). The bytes claimed are those of the
// stored type: a well-compressed uint8 column is not mistaken for damage.
TEST(DataHdf5, ArrayClaimingMoreThanItStoresIsRefusedBeforeAllocating) {
  const std::string path = tmp("claims.h5");
  {
    data::h5::File f = data::h5::create_file(path);
    // 10 M float64 (80 MB) never written: contiguous, no storage at all.
    const hsize_t n = 10000000;
    data::h5::Dataspace sp(H5Screate_simple(1, &n, nullptr));
    data::h5::Dataset d(
        H5Dcreate2(f.id(), "unwritten", H5T_IEEE_F64LE, sp.id(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    ASSERT_TRUE(d.valid());
    // 70 M zero bytes, chunked and deflated (about 1000:1): real, readable data.
    const hsize_t m = 70000000, chunk = 1 << 20;
    data::h5::Dataspace sp2(H5Screate_simple(1, &m, nullptr));
    data::h5::PropList dcpl(H5Pcreate(H5P_DATASET_CREATE));
    H5Pset_chunk(dcpl.id(), 1, &chunk);
    H5Pset_deflate(dcpl.id(), 9);
    data::h5::Dataset z(H5Dcreate2(f.id(), "zeros", H5T_STD_U8LE, sp2.id(), H5P_DEFAULT, dcpl.id(), H5P_DEFAULT));
    const std::vector<std::uint8_t> zeros(m, 0);
    ASSERT_GE(H5Dwrite(z.id(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros.data()), 0);
    data::h5::close_file(f, path);
  }
  data::h5::File f = data::h5::open_file(path);
  try {
    data::h5::read_array<double>(f.id(), "unwritten", H5T_NATIVE_DOUBLE, path);
    FAIL() << "no error for a dataset claiming 80 MB and storing none";
  } catch (const data::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unwritten: dataset claims 10000000 values but stores 0 bytes"),
              std::string::npos)
        << e.what();
  }
  const auto v = data::h5::read_array<std::uint8_t>(f.id(), "zeros", H5T_NATIVE_UINT8, path);
  EXPECT_EQ(v.size(), 70000000u);
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](std::uint8_t x) { return x == 0; }));
  f.reset();
  std::remove(path.c_str());
}

}  // namespace
}  // namespace stribeck
