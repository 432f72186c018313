// InputDocument: libyaml's and simdjson's readings of the same content give the same tree,
// every node knows where it was written, and malformed or hostile input is one InputError
// with its position.
#include "../../src/io/input_document.hpp"

#include <gtest/gtest.h>

#include <string>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/core/text_file.hpp"
#include "hetsched/io/workload_file.hpp"

namespace hetsched::io_detail {
namespace {

// The tree as text: kinds, scalars and shape, without positions.
std::string shape_of(const InputNode& node) {
  if (!node.is_defined()) return "undefined";
  if (node.is_null()) return "null";
  if (node.is_scalar()) return "'" + std::string(node.scalar()) + "'";
  std::string out = node.is_map() ? "{" : "[";
  for (std::size_t i = 0; i < node.size(); ++i) {
    if (i) out += ",";
    out += node.is_map() ? shape_of(node.key_at(i)) + ":" + shape_of(node.value_at(i))
                         : shape_of(node[i]);
  }
  return out + (node.is_map() ? "}" : "]");
}

std::string error_of(const std::string& text) {
  try {
    InputDocument document(text, "f");
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

TEST(InputDocument, YamlAndJsonReadingsGiveTheSameTree) {
  const InputDocument yaml(
      "jobs:\n  - {name: \"a\\tb\", n: 1.5e3, ok: true, none: null, l: [x, 2]}\n", "w.yaml");
  const InputDocument json(
      "{\"jobs\": [{\"name\": \"a\\tb\", \"n\": 1.5e3, \"ok\": true, \"none\": null, \"l\": "
      "[\"x\", 2]}]}",
      "w.json");
  EXPECT_EQ(shape_of(yaml.root()), shape_of(json.root()));
  EXPECT_EQ(shape_of(json.root()),
            "{'jobs':[{'name':'a\tb','n':'1.5e3','ok':'true','none':null,"
            "'l':['x','2']}]}");
}

TEST(InputDocument, NodesKnowWhereTheyWereWritten) {
  const InputDocument json("{\"a\": 1,\n  \"b\": [true, \"x\"]}", "f.json");
  const InputNode b = json.root().value_at(1);
  EXPECT_EQ(json.root().key_at(1).position().line, 2);
  EXPECT_EQ(json.root().key_at(1).position().column, 3);
  EXPECT_EQ(b[1].position().line, 2);
  EXPECT_EQ(b[1].position().column, 15);
  EXPECT_EQ(b[1].position().file, "f.json");
  const InputDocument yaml("a: 1\nb:\n  - true\n  - x\n", "f.yaml");
  EXPECT_EQ(yaml.root().value_at(1)[1].position().line, 4);
  EXPECT_EQ(yaml.root().value_at(1)[1].position().column, 5);
}

TEST(InputDocument, YamlNullsAndAliasesAreReadAsYamlCppReadThem) {
  const InputDocument yaml("a: ~\nb:\nc: 'null'\nd: &shared {x: 1}\ne: *shared\n", "f.yaml");
  const InputNode root = yaml.root();
  EXPECT_TRUE(root.value_at(0).is_null());
  EXPECT_TRUE(root.value_at(1).is_null());
  EXPECT_EQ(root.value_at(2).scalar(), "null");  // quoted: a string
  EXPECT_EQ(shape_of(root.value_at(4)), "{'x':'1'}");
  EXPECT_NE(error_of("a: *missing\n").find("f:1:4: alias *missing"), std::string::npos)
      << error_of("a: *missing\n");
  // An alias inside the node it names would make the tree a loop.
  EXPECT_NE(error_of("a: &loop [*loop]\n").find("alias *loop"), std::string::npos);
}

TEST(InputDocument, SyntaxErrorsNameTheirPosition) {
  EXPECT_NE(error_of("{\"a\": 1,}").find("f:1:9: JSON syntax error"), std::string::npos);
  EXPECT_NE(error_of("{\"a\": 1} x").find("f:1:10: JSON syntax error"), std::string::npos);
  EXPECT_NE(error_of("{\"a\": [1,\n 2, -]}").find("f:2:6: JSON syntax error"), std::string::npos)
      << error_of("{\"a\": [1,\n 2, -]}");
  EXPECT_NE(error_of("{\"a\": 01}").find("f:1:"), std::string::npos);
  EXPECT_NE(error_of("{\"a\": 1x}").find("JSON syntax error"), std::string::npos);
  EXPECT_NE(error_of("a: [\n").find("f:2:1: YAML syntax error"), std::string::npos)
      << error_of("a: [\n");
}

TEST(InputDocument, DeepNestingIsRefusedNotRecursedInto) {
  const std::string json = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_NE(error_of(json).find("nesting deeper than"), std::string::npos) << error_of(json);
  const std::string yaml = "a: " + std::string(100000, '[') + std::string(100000, ']');
  EXPECT_NE(error_of(yaml).find("nesting deeper than"), std::string::npos) << error_of(yaml);
  EXPECT_EQ(error_of(std::string(kMaxInputDepth, '[') + std::string(kMaxInputDepth, ']')),
            "no error");
}

TEST(InputDocument, JsonReadWhereItIsDoesNotDependOnTheBytesAfterIt) {
  // Texts followed, within their room, by bytes that would change them if they were read as
  // part of the text; each must read as the same text does in a copy.
  for (const std::string& text : {std::string("{\"a\": [1, 2.5e3, \"x\"], \"b\": 12}"),
                                  std::string("[true, null, 7]"), std::string("-12.5e1")}) {
    std::string room = text;
    room.reserve(text.size() + kTextFileRoomAfter);
    room.append("99999\"]}}, 1 2 3 ");
    room.append(kTextFileRoomAfter, '9');
    const std::string_view in_place(room.data(), text.size());
    const InputDocument read_in_place(in_place, "f", room.size() - text.size());
    const InputDocument read_in_copy(text, "f");
    EXPECT_EQ(shape_of(read_in_place.root()), shape_of(read_in_copy.root())) << text;
  }
  // An error past the text's end is the copy's error too: the text ends where it ends.
  std::string cut = "{\"a\": 1";
  const std::size_t length = cut.size();
  cut.append("}   ");
  cut.append(kTextFileRoomAfter, ' ');
  EXPECT_THROW(InputDocument(std::string_view(cut.data(), length), "f", cut.size() - length),
               InputError);
}

TEST(InputDocument, AWorkloadReadsTheSameFromYamlAndJson) {
  const Cluster cluster = default_cluster();
  const Workload yaml = parse_workload(
      "jobs:\n  - name: j\n    tasks:\n      - {name: a, flops: 1e12}\n"
      "      - {name: b, flops: 2e12, after: [{task: a, bytes: 5e6}]}\n",
      "w.yaml", cluster);
  const Workload json = parse_workload(
      "{\"jobs\": [{\"name\": \"j\", \"tasks\": [{\"name\": \"a\", \"flops\": 1e12},\n"
      "  {\"name\": \"b\", \"flops\": 2e12, \"after\": [{\"task\": \"a\", \"bytes\": 5e6}]}]}]}",
      "w.json", cluster);
  ASSERT_EQ(yaml.jobs.size(), 1u);
  ASSERT_EQ(json.jobs.size(), 1u);
  ASSERT_EQ(json.jobs[0].tasks.size(), 2u);
  EXPECT_EQ(json.jobs[0].tasks[1].name, yaml.jobs[0].tasks[1].name);
  EXPECT_EQ(json.jobs[0].tasks[1].flops, yaml.jobs[0].tasks[1].flops);
  ASSERT_EQ(json.jobs[0].edges.size(), 1u);
  EXPECT_EQ(json.jobs[0].edges[0].bytes, yaml.jobs[0].edges[0].bytes);
  // A semantic error in JSON points at its line and column too.
  try {
    (void)parse_workload(
        "{\"jobs\": [{\"name\": \"j\",\n \"tasks\": [{\"name\": \"a\", \"flop\": 1}]}]}", "w.json",
        cluster);
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("w.json:2:26: unknown field 'flop'"),
              std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace hetsched::io_detail
