import Foundation
import Testing
@testable import Thumbgen

/// `--shard`: which rows a shard owns (`SourceIdentity`, `Shard`), and what `--shard auto` reads
/// from each engine's environment (`ShardEnvironment`).
@Suite("Sharding: source identity, the hash, --shard auto")
struct ShardAssignmentTests {
    @Test("The hash is pinned: SHA-256's first 8 bytes, big-endian, modulo N (a change here re-deals every array job's rows)")
    func pinnedAssignments() throws {
        // Worked out with Python's hashlib, not with the code under test:
        // int.from_bytes(hashlib.sha256(identity.encode()).digest()[:8], "big").
        #expect(SourceIdentity.hash("a.jpg") == 0x509b_0d46_41a7_c3ba)
        #expect(SourceIdentity.hash("") == 0xe3b0_c442_98fc_1c14)
        let pinned: [(src: String, four: Int, seven: Int, thousand: Int)] = [
            ("a.jpg", 2, 4, 26),
            ("img/a.jpg", 0, 2, 220),
            ("https://example.com/p/1.jpg", 3, 2, 695),
            ("/srv/images/x.png", 3, 5, 935),
            ("../shared/b.png", 0, 4, 480),
        ]
        for entry in pinned {
            #expect(Shard.index(ofSource: entry.src, count: 4) == entry.four, "\(entry.src)")
            #expect(Shard.index(ofSource: entry.src, count: 7) == entry.seven, "\(entry.src)")
            #expect(Shard.index(ofSource: entry.src, count: 1000) == entry.thousand, "\(entry.src)")
        }
        // A record with no src cell (or none readable) has the empty identity.
        #expect(Shard.index(ofSource: nil, count: 7) == 1 && Shard.index(ofSource: "  ", count: 7) == 1)
    }

    @Test("The identity is the src cell's, normalised by text alone: the manifest's folder is never part of it")
    func identity() {
        let same = ["a.jpg", "./a.jpg", " a.jpg ", "img/../a.jpg", ".//a.jpg"]
        #expect(Set(same.map { SourceIdentity.of(src: $0) }) == ["a.jpg"])
        #expect(SourceIdentity.of(src: "../shared/./b.png") == "../shared/b.png")
        #expect(SourceIdentity.of(src: "../../x/../b.png") == "../../b.png")
        #expect(SourceIdentity.of(src: "/srv//images/./x.png") == "/srv/images/x.png")
        #expect(SourceIdentity.of(src: "/../x.png") == "/x.png")
        #expect(SourceIdentity.of(src: "file:///srv/images/x%20y.png") == "/srv/images/x y.png")
        #expect(SourceIdentity.of(src: "file:///srv/images/../images/x.png") == "/srv/images/x.png")
        // A URL is its text as written (its query too: another query is another resource).
        #expect(SourceIdentity.of(src: "https://Example.com/a/../p.jpg?w=1") == "https://Example.com/a/../p.jpg?w=1")
        #expect(SourceIdentity.of(src: nil) == "")
    }

    @Test("Every row is in exactly one shard, and a source's rows in the same one")
    func partition() throws {
        let sources = (0..<500).map { "photos/\($0 % 97)/p\($0).jpg" }
        for count in [1, 2, 3, 4, 16] {
            let shards = try (0..<count).map { try Shard(index: $0, count: count) }
            var sizes = Array(repeating: 0, count: count)
            for src in sources + sources.map({ "./" + $0 }) {
                let owners = shards.filter { $0.owns(src: src) }
                #expect(owners.count == 1, "\(src) in \(owners.count) of \(count) shards")
                if let owner = owners.first { sizes[owner.index] += 1 }
            }
            // Roughly even: no shard empty, none with twice its share.
            #expect(sizes.allSatisfy { $0 > 0 && $0 < 2 * 1000 / count + 20 }, "\(sizes)")
        }
    }

    @Test("--shard I/N is parsed strictly, with errors that say what to write")
    func parsing() throws {
        #expect(try Shard(parsing: "0/4") == Shard(index: 0, count: 4))
        #expect(try Shard(parsing: "3/4").description == "3/4")
        for bad in ["4/4", "-1/4", "1/0", "1", "a/4", "1/4/2", " 1/4", "1/+4", "", "1/"] {
            #expect(throws: ShardError.self, "\(bad)") { try Shard(parsing: bad) }
        }
        #expect(throws: ShardError.outOfRange("--shard", "the index is 4; with 4 shards it must be 0 to 3")) {
            try Shard(parsing: "4/4")
        }
    }

    @Test("--shard auto: Kubernetes, AWS Batch and Slurm give the index; the count comes from auto/N or Slurm")
    func auto() throws {
        func shard(_ text: String, _ environment: [String: String]) throws -> Shard {
            try ShardEnvironment.shard(text, environment: environment)
        }
        #expect(try shard("auto/4", ["JOB_COMPLETION_INDEX": "3"]) == Shard(index: 3, count: 4))
        #expect(try shard("auto/10", ["AWS_BATCH_JOB_ARRAY_INDEX": "0"]) == Shard(index: 0, count: 10))
        #expect(try shard("2/4", ["JOB_COMPLETION_INDEX": "3"]) == Shard(index: 2, count: 4))  // explicit wins
        // Slurm: --array=0-3, --array=1-4 (MIN 1), --array=10-16:2 (STEP 2).
        let zero = ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3",
                    "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_STEP": "1"]
        #expect(try shard("auto", zero) == Shard(index: 2, count: 4))
        #expect(try shard("auto/4", zero) == Shard(index: 2, count: 4))
        let one = ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "4",
                   "SLURM_ARRAY_TASK_COUNT": "4"]
        #expect(try shard("auto", one) == Shard(index: 3, count: 4))
        let stepped = ["SLURM_ARRAY_TASK_ID": "14", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_MAX": "16",
                       "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_STEP": "2"]
        #expect(try shard("auto", stepped) == Shard(index: 2, count: 4))
    }

    @Test("--shard auto refuses what it cannot number, naming the variable")
    func autoErrors() {
        func error(_ text: String, _ environment: [String: String]) -> String {
            do {
                _ = try ShardEnvironment.shard(text, environment: environment)
                return "no error"
            } catch {
                return error.description
            }
        }
        #expect(error("auto", [:]).contains("none of JOB_COMPLETION_INDEX"))
        #expect(error("auto", ["JOB_COMPLETION_INDEX": "1"]).contains("JOB_COMPLETION_INDEX gives this shard's index but not how many"))
        #expect(error("auto", ["AWS_BATCH_JOB_ARRAY_INDEX": "1"]).contains("write --shard auto/N"))
        #expect(error("auto/4", ["JOB_COMPLETION_INDEX": "4"]).contains("JOB_COMPLETION_INDEX=4"))
        #expect(error("auto/4", ["JOB_COMPLETION_INDEX": "one"]).contains("JOB_COMPLETION_INDEX is 'one', not a whole number"))
        #expect(error("auto/4", ["JOB_COMPLETION_INDEX": "-1"]).contains("not a whole number"))
        #expect(error("auto/x", ["JOB_COMPLETION_INDEX": "1"]).contains("expected I/N"))
        #expect(error("auto/4", ["JOB_COMPLETION_INDEX": "1", "SLURM_ARRAY_TASK_ID": "1"])
            .contains("both JOB_COMPLETION_INDEX and SLURM_ARRAY_TASK_ID"))
        // A list array (--array=1,3,7): three tasks do not fill 1-7.
        #expect(error("auto", ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7",
                               "SLURM_ARRAY_TASK_COUNT": "3"]).contains("give a range (--array=0-2), not a list"))
        #expect(error("auto/8", ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4"])
            .contains("SLURM_ARRAY_TASK_COUNT: is 4, but --shard auto/8 says 8"))
        #expect(error("auto", ["SLURM_ARRAY_TASK_ID": "3"]).contains("not how many"))
        #expect(error("auto", ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "4"])
            .contains("SLURM_ARRAY_TASK_ID: is 0"))
    }
}
