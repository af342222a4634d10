#include "sm/fabric/partitions_conf.h"

#include <catch2/catch.hpp>

#include <sstream>

namespace ibsm {
namespace {

using Kind = PartitionMember::Kind;

Result<PartitionConfig> read(const std::string& text) {
  std::istringstream in(text);
  return read_partitions_conf(in, "partitions.conf");
}

PartitionConfig read_ok(const std::string& text) {
  auto r = read(text);
  INFO(r.status().message());
  REQUIRE(r.ok());
  return std::move(r).value();
}

std::string read_error(const std::string& text) {
  auto r = read(text);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == StatusCode::invalid_argument);
  return r.status().message();
}

}  // namespace

TEST_CASE("the conventional default partition", "[fabric][partitions]") {
  const auto c = read_ok("Default=0x7fff, ipoib : ALL=full;\n");
  REQUIRE(c.partitions.size() == 1);
  const Partition& p = c.partitions[0];
  CHECK(p.name == "Default");
  CHECK(p.pkey == 0x7fff);
  CHECK(p.ipoib);
  CHECK_FALSE(p.indx0);
  CHECK(p.defmember == Membership::limited);
  CHECK(p.line == 1);
  REQUIRE(p.members.size() == 1);
  CHECK(p.members[0].kind == Kind::all);
  CHECK(p.members[0].membership == Membership::full);
  CHECK(p.groups.empty());
  CHECK_FALSE(p.flags.mtu);
}

TEST_CASE("OpenSM's documented examples", "[fabric][partitions]") {
  const auto c = read_ok(
      "Default=0x7fff : ALL, ALL_SWITCHES=full, SELF=full ;\n"
      "\n"
      "NewPartition = 0x8002 , ipoib : 0x123456=full, 0x3456789034=limi, 0x2134af2306 ;\n"
      "YetAnotherOne = 0x300 : SELF=full ;\n"
      "ShareIO = 0x80 , defmember=full : 0x123451, 0x123452=limited, 0x123453=both;\n"
      "Empty=0x9:;\n");
  REQUIRE(c.partitions.size() == 5);
  const Partition& d = c.partitions[0];
  REQUIRE(d.members.size() == 3);
  CHECK(d.members[0].kind == Kind::all);
  CHECK_FALSE(d.members[0].membership);
  CHECK(d.members[1].kind == Kind::all_switches);
  CHECK(d.members[2].kind == Kind::self);
  CHECK(d.members[2].membership == Membership::full);

  const Partition& n = c.partitions[1];
  CHECK(n.name == "NewPartition");
  CHECK(n.pkey == 0x0002);  // the membership bit of the file's P_Key is dropped
  CHECK(n.line == 3);
  REQUIRE(n.members.size() == 3);
  CHECK(n.members[0].guid == Guid(0x123456));
  CHECK(n.members[0].membership == Membership::full);
  CHECK(n.members[1].guid == Guid(0x3456789034));
  CHECK(n.members[1].membership == Membership::limited);  // "limi", as OpenSM reads it
  CHECK(n.members[2].kind == Kind::guid);
  CHECK(n.members[2].guid == Guid(0x2134af2306));
  CHECK_FALSE(n.members[2].membership);

  CHECK(c.partitions[2].pkey == 0x300);
  const Partition& s = c.partitions[3];
  CHECK(s.defmember == Membership::full);
  REQUIRE(s.members.size() == 3);
  CHECK_FALSE(s.members[0].membership);
  CHECK(s.members[1].membership == Membership::limited);
  CHECK(s.members[2].membership == Membership::both);
  CHECK(c.partitions[4].members.empty());
}

TEST_CASE("multi-line definitions, comments, several on a line", "[fabric][partitions]") {
  const auto c = read_ok(
      "# site partitions\n"
      "  Storage =\t0x10,   # the header may carry a comment\n"
      "    ipoib, mtu=5 :\n"
      "  0x0002c90300001111 = full ,  # first\n"
      "  0x0002c90300002222\n"
      "  ,ALL_CAS\n"
      ";\n"
      "A=1:SELF; B=2 : ALL_ROUTERS=both ; 0x30 : NONE;\n");
  REQUIRE(c.partitions.size() == 4);
  const Partition& s = c.partitions[0];
  CHECK(s.name == "Storage");
  CHECK(s.line == 2);
  CHECK(s.pkey == 0x10);
  CHECK(s.ipoib);
  CHECK(s.flags.mtu == 5);
  REQUIRE(s.members.size() == 3);
  CHECK(s.members[0].guid == Guid(0x0002c90300001111));
  CHECK(s.members[0].line == 4);
  CHECK(s.members[1].guid == Guid(0x0002c90300002222));
  CHECK(s.members[1].line == 5);
  CHECK(s.members[2].kind == Kind::all_cas);
  CHECK(s.members[2].line == 6);
  CHECK(c.partitions[1].name == "A");
  CHECK(c.partitions[1].line == 8);
  CHECK(c.partitions[2].members.at(0).kind == Kind::all_routers);
  CHECK(c.partitions[2].members.at(0).membership == Membership::both);
  CHECK(c.partitions[3].name.empty());  // a bare number is the P_Key
  CHECK(c.partitions[3].pkey == 0x30);
  CHECK(c.partitions[3].members.empty());
}

TEST_CASE("every partition flag", "[fabric][partitions]") {
  const auto c = read_ok(
      "P=0x20, ipoib, indx0, mtu=4096, rate=100G, sl=3, scope=2, scope=5, Q_Key=0x80010000, TClass=7,"
      " FlowLabel=0x12345, defmember=both : ALL;\n"
      "Q=0x21, mtu=2, rate=7, qkey=11, tclass=0x20, flowlabel=9 : ALL;\n");
  const Partition& p = c.partitions.at(0);
  CHECK(p.ipoib);
  CHECK(p.indx0);
  CHECK(p.flags.mtu == 5);
  CHECK(p.flags.rate == 16);
  CHECK(p.flags.sl == 3);
  CHECK(p.flags.scope_mask == ((1u << 2) | (1u << 5)));
  CHECK(p.flags.q_key == 0x80010000u);
  CHECK(p.flags.tclass == 7);
  CHECK(p.flags.flow_label == 0x12345u);
  CHECK(p.defmember == Membership::both);
  const Partition& q = c.partitions.at(1);
  CHECK_FALSE(q.ipoib);
  CHECK(q.flags.mtu == 2);
  CHECK(q.flags.rate == 7);
  CHECK(q.flags.q_key == 11u);
  CHECK(q.flags.tclass == 0x20);
  CHECK(q.flags.flow_label == 9u);
  CHECK_FALSE(q.flags.sl);
  CHECK(q.flags.scope_mask == 0);
}

TEST_CASE("multicast groups inside a partition", "[fabric][partitions]") {
  const auto c = read_ok(
      "Default=0x7fff, ipoib:\n"
      "  mgid=ff12:401b::0707,sl=1 # an IPv4 group\n"
      "  mgid = ff12:601b::16, mtu=4, rate=3, scope=5\n"
      "  ALL=full, SELF=full,\n"
      "  mgid=ff15:0:1:2:3:4:5:6\n"
      "  ;\n");
  const Partition& p = c.partitions.at(0);
  REQUIRE(p.members.size() == 2);
  CHECK(p.members[1].kind == Kind::self);
  REQUIRE(p.groups.size() == 3);
  const std::array<uint8_t, 16> g0{0xff, 0x12, 0x40, 0x1b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x07, 0x07};
  CHECK(p.groups[0].mgid == g0);
  CHECK(p.groups[0].flags.sl == 1);
  CHECK_FALSE(p.groups[0].flags.mtu);  // unset: inherited later, not here
  CHECK(p.groups[0].line == 2);
  CHECK(p.groups[1].mgid[2] == 0x60);
  CHECK(p.groups[1].mgid[15] == 0x16);
  CHECK(p.groups[1].flags.mtu == 4);
  CHECK(p.groups[1].flags.rate == 3);
  CHECK(p.groups[1].flags.scope_mask == (1u << 5));
  const std::array<uint8_t, 16> g2{0xff, 0x15, 0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6};
  CHECK(p.groups[2].mgid == g2);
  CHECK(p.groups[2].line == 5);
}

TEST_CASE("each error names its line and the problem", "[fabric][partitions]") {
  CHECK(read_error("\n\nA=0x10, rate=fast : ALL;\n") ==
        "partitions.conf:3: rate 'fast': expected a rate code 2-24 or a name like 40G (2.5G 5G 10G 14G 20G 25G "
        "28G 30G 40G 50G 56G 60G 80G 100G 112G 120G 168G 200G 300G 400G 600G 800G 1200G)");
  CHECK(read_error("A=0x10, mtu=9000 : ALL;") ==
        "partitions.conf:1: mtu '9000': expected an mtu code 1-5 or a size 256, 512, 1024, 2048 or 4096");
  CHECK(read_error("A=0 : ALL;") ==
        "partitions.conf:1: partition 'A': P_Key 0 is 0 without the membership bit; 0 is not a P_Key");
  CHECK(read_error("A=0x8000 : ALL;") ==
        "partitions.conf:1: partition 'A': P_Key 0x8000 is 0 without the membership bit; 0 is not a P_Key");
  CHECK(read_error("A=0x10000 : ALL;") ==
        "partitions.conf:1: partition 'A': P_Key '0x10000': expected a number 0x0001-0x7fff");
  CHECK(read_error("A : ALL;") ==
        "partitions.conf:1: partition 'A': no P_Key (OpenSM would make one up; ibsm needs it written)");
  CHECK(read_error("A=1 :\n ALL,\n 0x12zz=full;") ==
        "partitions.conf:3: port GUID '0x12zz': expected ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF or a "
        "nonzero 64-bit GUID (0x... or decimal)");
  CHECK(read_error("A=1 : 0x10000000000000000;").find("port GUID '0x10000000000000000'") != std::string::npos);
  CHECK(read_error("A=1 : ALL=half;") ==
        "partitions.conf:1: membership 'half' of 'ALL': expected full, limited or both");
  CHECK(read_error("A=1, fast : ALL;") ==
        "partitions.conf:1: unknown partition flag 'fast' (known: ipoib, indx0, defmember, mtu, rate, sl, scope, "
        "Q_Key, TClass, FlowLabel)");
  CHECK(read_error("A=1, sl=16 : ALL;") == "partitions.conf:1: sl '16': expected an SL 0-15");
  CHECK(read_error("A=1, scope=0 : ALL;") ==
        "partitions.conf:1: scope '0': expected a multicast scope 1-15 (2 is link-local)");
  CHECK(read_error("A=1, defmember=none : ALL;") ==
        "partitions.conf:1: defmember 'none': expected full, limited or both");
  CHECK(read_error("A=1 : ALL;\nB=2 :\n  SELF") ==
        "partitions.conf:2: definition 'B=2 : SELF' not ended by ';' at end of file");
  CHECK(read_error("A=1 ALL;") == "partitions.conf:1: no ':' after the partition definition 'A=1 ALL'");
  CHECK(read_error("\nA=1,\n ipoib ALL  SELF 0x0002c90300001111 0x0002c90300002222;") ==
        "partitions.conf:2: no ':' after the partition definition "
        "'A=1, ipoib ALL SELF 0x0002c90300001111 0...' (59 bytes)");
  CHECK(read_error("A=1 :\n mgid=fe80::1\n;") ==
        "partitions.conf:2: mgid 'fe80::1': not a multicast GID (must start with ff)");
  CHECK(read_error("A=1 :\n mgid=ff12:::1\n;") ==
        "partitions.conf:2: mgid 'ff12:::1': expected a GID like ff12:401b::1");
  CHECK(read_error("A=1 :\n mgid=ff12::1, color=red\n;") ==
        "partitions.conf:2: unknown group flag 'color' (known: mtu, rate, sl, scope, Q_Key, TClass, FlowLabel)");
  // OpenSM's man page shows "ShareIO = 0x80 : defmember=limited : ..."; OpenSM
  // itself reads "defmember" there as a port GUID and refuses the line.
  CHECK(read_error("S=0x80 : defmember=limited : 0x1;").find("port GUID 'defmember'") != std::string::npos);
}

TEST_CASE("a P_Key defined again joins its partition, as in OpenSM; names and flags must agree", "[fabric][partitions]") {
  // OpenSM's split ShareIO example: one partition over three definitions.
  PartitionConfig c = read_ok("ShareIO = 0x80 , defmember=full : 0x123451, 0x123452;\n"
                              "ShareIO = 0x80 , defmember=limited : 0x123453, 0x123454=full;\n"
                              "ShareIO = 0x80, mtu=4 : mgid=ff12:401b::1\n;\n");
  REQUIRE(c.partitions.size() == 1);
  const Partition& p = c.partitions[0];
  REQUIRE(p.members.size() == 4);
  CHECK(p.members[2].guid == Guid{0x123453});
  CHECK(p.members[2].membership == Membership::limited);  // its own definition's defmember
  CHECK(p.members[3].membership == Membership::full);
  CHECK(p.flags.mtu == 4);
  CHECK(p.groups.size() == 1);
  CHECK(read_error("ShareIO=0x80, defmember=full : 0x123451;\n"
                   "ShareIO2=0x8080 : 0x123453;\n") ==
        "partitions.conf:2: partition 'ShareIO2': P_Key 0x0080 already used by partition 'ShareIO' on line 1");
  CHECK(read_error("S=0x80, rate=3 : ALL;\nS=0x80, rate=7 : SELF;\n") ==
        "partitions.conf:2: partition 'S': rate 7 differs from 3 on line 1");
  CHECK(read_error("X=1 : ALL;\n# gap\nX=2 : SELF;\n") ==
        "partitions.conf:3: partition name 'X' already used on line 1");
  // Nameless partitions may be several.
  CHECK(read_ok("0x5 : ALL; 0x6 : ALL;").partitions.size() == 2);
}

TEST_CASE("all problems of a file in one error, in line order", "[fabric][partitions]") {
  const std::string message = read_error(
      "Default=0x7fff, ipoib : ALL=full;\n"
      "A=0x10, rate=fast : ALL;\n"
      "B=0x7fff : SELF;\n"
      "C=0x11 : 0xnope, ALL=maybe;\n"
      "D=0x12, mtu=7 : ALL");
  CHECK(message ==
        "partitions.conf:2: rate 'fast': expected a rate code 2-24 or a name like 40G (2.5G 5G 10G 14G 20G 25G "
        "28G 30G 40G 50G 56G 60G 80G 100G 112G 120G 168G 200G 300G 400G 600G 800G 1200G)\n"
        "partitions.conf:3: partition 'B': P_Key 0x7fff already used by partition 'Default' on line 1\n"
        "partitions.conf:4: port GUID '0xnope': expected ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF or a "
        "nonzero 64-bit GUID (0x... or decimal)\n"
        "partitions.conf:4: membership 'maybe' of 'ALL': expected full, limited or both\n"
        "partitions.conf:5: definition 'D=0x12, mtu=7 : ALL' not ended by ';' at end of file");
}

TEST_CASE("an empty file or one of comments has no partitions", "[fabric][partitions]") {
  CHECK(read_ok("").partitions.empty());
  CHECK(read_ok("# nothing\n   \n;\n").partitions.empty());
}

}  // namespace ibsm
