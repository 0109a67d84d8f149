// The figure model's decimation and the HTML page's size (report/,
// docs/reports.md). Expected values are closed forms of the input, not
// outputs of the code under test. (A report of a fit the program made:
// tests/unit/cli/test_report.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "stribeck/report/figure.hpp"

namespace stribeck::report {
namespace {

// A 1e6-sample sine with isolated one-sample spikes: every spike survives
// min/max decimation, the series keeps its extremes, its size is bounded by
// 2 per column, and x stays increasing.
TEST(ReportDecimation, KeepsEverySpikeAndTheExtremes) {
  const std::size_t n = 1000000, columns = 1000;
  Series s{"s", std::vector<double>(n), std::vector<double>(n)};
  for (std::size_t i = 0; i < n; ++i) {
    s.x[i] = 1e-3 * double(i);
    s.y[i] = std::sin(2 * M_PI * double(i) / 250000.0);
  }
  const std::size_t spikes[] = {1234, 333333, 777777, 999998};
  for (std::size_t k = 0; k < 4; ++k) s.y[spikes[k]] = k % 2 ? -5.0 - double(k) : 5.0 + double(k);
  const Series d = decimate_minmax(s, columns);
  ASSERT_EQ(d.x.size(), d.y.size());
  EXPECT_LE(d.x.size(), 2 * columns);
  EXPECT_GE(d.x.size(), columns);  // a column of a sine has a distinct min and max
  EXPECT_TRUE(std::is_sorted(d.x.begin(), d.x.end()));
  for (std::size_t k = 0; k < 4; ++k) {
    const double x = 1e-3 * double(spikes[k]);
    const auto it = std::find(d.x.begin(), d.x.end(), x);
    ASSERT_NE(it, d.x.end()) << "spike at sample " << spikes[k] << " lost";
    EXPECT_EQ(d.y[it - d.x.begin()], s.y[spikes[k]]);
  }
  EXPECT_EQ(*std::max_element(d.y.begin(), d.y.end()), 7.0);
  EXPECT_EQ(*std::min_element(d.y.begin(), d.y.end()), -8.0);
}

TEST(ReportDecimation, ShortSeriesUnchangedAndNaNDropped) {
  Series s{"s", {0, 1, 2, 3, 4}, {1, NAN, 3, 4, 5}};
  const Series d = decimate_minmax(s, 10);
  EXPECT_EQ(d.x, (std::vector<double>{0, 2, 3, 4}));
  EXPECT_EQ(d.y, (std::vector<double>{1, 3, 4, 5}));
  // Degenerate: one x value, constant y, zero columns.
  Series c{"c", std::vector<double>(100, 2.0), std::vector<double>(100, 1.0)};
  EXPECT_EQ(decimate_minmax(c, 0).x.size(), 100u);
  Series e{"e", {}, {}};
  EXPECT_TRUE(decimate_minmax(e, 4000).x.empty());
}

// A 1e7-sample log (measured, fitted, residual) gives a page under 10 MB:
// the 4,000-column decimation bounds each series at 8,000 points whatever
// the length.
TEST(ReportHtml, TenMillionSamplesGiveAPageUnderTenMegabytes) {
  const std::size_t n = 10000000;
  Series t{"measured", std::vector<double>(n), std::vector<double>(n)};
  for (std::size_t i = 0; i < n; ++i) {
    t.x[i] = 1e-4 * double(i);
    t.y[i] = 100.0 * std::sin(0.001 * double(i)) + 0.37 * double(i % 7);
  }
  Document doc;
  doc.kind = "identification";
  doc.title = "size check";
  doc.source = "synthetic";
  Section s{"Experiment", {}};
  for (const char* name : {"fit", "residuals", "timeseries"}) {
    Figure f;
    f.id = std::string("fig-") + name;
    f.what = name;
    f.title = name;
    f.x_label = "time [s]";
    f.y_label = "force [N]";
    f.series.push_back(decimate_minmax(t, 4000));
    f.series.push_back(decimate_minmax(t, 4000));
    EXPECT_LE(f.series[0].x.size(), 8000u);
    s.figures.push_back(std::move(f));
  }
  doc.sections.push_back(std::move(s));
  const std::string html = render_html(doc);
  EXPECT_LT(html.size(), 10u * 1000 * 1000);
  EXPECT_GT(html.size(), 50000u);  // uPlot itself is embedded
  EXPECT_NE(html.find("uPlot"), std::string::npos);
  EXPECT_EQ(html.find("<script src="), std::string::npos);  // nothing loaded from elsewhere
  EXPECT_EQ(html.find("<link "), std::string::npos);
}

// Text from the file (experiment names, commands) cannot break out of the
// page: markup is escaped in HTML and "</" never appears in the JSON.
TEST(ReportHtml, NamesAreEscaped) {
  Document doc;
  doc.kind = "identification";
  doc.title = "<b>t</b>";
  doc.source = "a&b";
  Section s{"<i>", {}};
  Figure f;
  f.id = "fig-x";
  f.title = "</script><script>alert(1)</script>";
  f.series.push_back({"</script>", {0, 1}, {0, 1}});
  s.figures.push_back(f);
  doc.sections.push_back(s);
  doc.provenance.push_back({"command", "stribeck identify '<x>'"});
  const std::string html = render_html(doc);
  EXPECT_EQ(html.find("alert(1)</script>"), std::string::npos);
  EXPECT_EQ(html.find("<b>t</b>"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;t&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(html.find("'&lt;x&gt;'"), std::string::npos);
}

}  // namespace
}  // namespace stribeck::report
