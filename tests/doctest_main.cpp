// doctest's main, plus one guard: ctest runs each case as `--test-case=<name>`
// (doctest_discover_tests), and a name the discovery mangles (CMake splits a name at ';')
// matches no case and would pass with no assertion run. A run filtered by --test-case / -tc that
// selects no test case fails instead.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <string_view>

namespace {

int g_selected = -1;  // test cases that passed the filters; -1: no run (a query)

struct SelectedCount : doctest::IReporter {
  explicit SelectedCount(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& s) override {
    g_selected = static_cast<int>(s.numTestCasesPassingFilters);
  }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

DOCTEST_REGISTER_LISTENER("selected_count", 1, SelectedCount);

bool filtered_by_case(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a.starts_with("--test-case=") || a.starts_with("-tc=")) return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int rc = context.run();
  if (context.shouldExit()) return rc;
  if (rc == 0 && g_selected == 0 && filtered_by_case(argc, argv)) {
    std::fprintf(stderr, "doctest_main: the --test-case filter selects no test case\n");
    return 1;
  }
  return rc;
}
