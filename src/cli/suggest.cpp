#include "cli/suggest.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

namespace topoplan::cli {

int edit_distance(const std::string& a, const std::string& b) {
  // Optimal string alignment: Levenshtein plus a swap of two neighbouring letters as one edit
  // ("--modle" is one edit from "--model", as from "--mode").
  std::vector<std::vector<int>> d(a.size() + 1, std::vector<int>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = static_cast<int>(i);
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

namespace {

// The closest candidate within a third of the word's length (at least 2 edits, so that a
// swapped pair of letters is found, at most 3).
std::string closest(const std::string& word, const std::vector<std::string>& names) {
  const int limit = std::clamp(static_cast<int>(word.size()) / 3, 2, 3);
  std::string best;
  int best_d = limit + 1;
  // Ties go to the name whose length is closest to the word's (a swap keeps the length).
  const auto gap = [&word](const std::string& n) {
    return n.size() > word.size() ? n.size() - word.size() : word.size() - n.size();
  };
  for (const std::string& n : names) {
    const int d = edit_distance(word, n);
    if (d < best_d || (d == best_d && !best.empty() && gap(n) < gap(best))) best_d = d, best = n;
  }
  return best;
}

// CLI11 lists the extra arguments last first, each split at blanks. Put them back in
// command-line order, an argument that holds blanks whole and quoted ('tp8 pp2', not pp2 tp8).
std::string extras_in_order(const std::string& listed, int argc, const char* const* argv) {
  std::vector<std::string> words;
  std::istringstream in(listed);
  for (std::string w; in >> w;) words.push_back(w);
  std::string out;
  const auto append = [&out](const std::string& text) { out += (out.empty() ? "" : " ") + text; };
  for (int i = 1; i < argc; ++i) {
    std::istringstream parts(argv[i]);
    std::vector<std::string> mine;
    for (std::string w; parts >> w;) mine.push_back(w);
    std::vector<std::string> rest = words;
    bool all = !mine.empty();
    for (const std::string& w : mine) {
      const auto it = std::find(rest.begin(), rest.end(), w);
      if (it == rest.end()) {
        all = false;
        break;
      }
      rest.erase(it);
    }
    if (!all) continue;
    words = std::move(rest);
    append(mine.size() > 1 ? "'" + std::string(argv[i]) + "'" : std::string(argv[i]));
  }
  for (auto w = words.rbegin(); w != words.rend(); ++w) append(*w);
  return out;
}

}  // namespace

std::string suggest(const CLI::App& app, int argc, const char* const* argv) {
  const CLI::App* cur = &app;
  for (int i = 1; i < argc; ++i) {
    const std::string tok = argv[i];
    if (tok.rfind("--", 0) == 0) {
      const std::string flag = tok.substr(0, tok.find('='));
      std::vector<std::string> names;
      for (const CLI::Option* o : cur->get_options())
        for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
      if (std::find(names.begin(), names.end(), flag) != names.end()) continue;
      std::string best = closest(flag, names);
      if (!best.empty()) return "did you mean " + best + "?";
      continue;
    }
    if (tok.rfind('-', 0) == 0) continue;
    std::vector<std::string> subs;
    const CLI::App* next = nullptr;
    for (const CLI::App* s : cur->get_subcommands([](const CLI::App*) { return true; })) {
      subs.push_back(s->get_name());
      if (s->get_name() == tok) next = s;
    }
    if (next) {
      cur = next;
      continue;
    }
    // A word where a subcommand is expected (a command with subcommands and no positionals).
    if (!subs.empty() &&
        cur->get_options([](const CLI::Option* o) { return o->get_positional(); }).empty()) {
      std::string best = closest(tok, subs);
      if (!best.empty()) return "did you mean " + best + "?";
    }
  }
  return "";
}

std::string parse_error_text(const CLI::ParseError& e, const CLI::App& app, int argc,
                             const char* const* argv) {
  std::string what = e.what();
  const std::string extras = "The following arguments were not expected: ";
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && what.rfind(extras, 0) == 0)
    what = extras + extras_in_order(what.substr(extras.size()), argc, argv);
  const std::string hint = suggest(app, argc, argv);
  return hint.empty() ? what : what + " (" + hint + ")";
}

}  // namespace topoplan::cli
