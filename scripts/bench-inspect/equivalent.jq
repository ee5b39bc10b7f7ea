# The jq baseline of scripts/bench-inspect.sh: what `push-inspect check --profile hermes
# --profile apple` checks, as a jq filter over capture lines. (One approximation: jq cannot
# compute HermesCollapseID's FNV-1a hash, so a collapse id for a session too long to fit
# 64 bytes is not compared.) It prints one line per failing
# push: {"seq":N,"rules":[…]}. Kept deliberately close to the Swift rules, so that the two
# find the same failing pushes in the benchmark's data (the script compares the counts).
def header($name): first(.headers[] | select(.[0] == $name) | .[1]) // null;
def copy: {
  "approval": ["Approval needed", "Hermes needs your approval", "HERMES_APPROVAL"],
  "clarify": ["Input needed", "Hermes needs more information", "HERMES_CLARIFY"],
  "complete": ["Turn complete", "Hermes finished the turn", "HERMES_COMPLETE"],
  "error": ["Hermes hit an error", "Hermes ran into a problem", "HERMES_ERROR"]
};
def interval: {"approval": 3600, "clarify": 3600, "complete": 86400, "error": 86400};
def suffixes: {"alert": "", "background": "", "voip": ".voip", "complication": ".complication",
  "fileprovider": ".pushkit.fileprovider", "liveactivity": ".push-type.liveactivity", "location": ".location-query",
  "pushtotalk": ".voip-ptt", "widgets": ".push-type.widgets", "controls": ".push-type.controls", "mdm": ""};
def apskeys: ["alert","badge","sound","thread-id","category","content-available","mutable-content","target-content-id",
  "interruption-level","relevance-score","filter-criteria","stale-date","content-state","timestamp","event",
  "dismissal-date","attributes-type","attributes","input-push-token","input-push-channel","content-changed","url-args"];
def alertkeys: ["title","subtitle","body","launch-image","title-loc-key","title-loc-args","subtitle-loc-key",
  "subtitle-loc-args","loc-key","loc-args","action-loc-key","action","sound"];
# The leak detectors as one regular expression (one compile per string, as a jq author
# would write it), plus the free-text word count.
def leakpattern: "(?:[A-Za-z0-9._%+-]@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)*\\.[A-Za-z]{2,})|(?:[A-Za-z][A-Za-z0-9+.-]+://[^/?#\\s]*(\\?|/\\S))|(?:(^|[\\s\"'(<,;])(/[\\w.~+@%-]+/[\\w.~+@%/-]*[\\w.~+@%-]|~/\\S|\\.\\.?/\\S|[\\w.-]+/[\\w./-]*\\.[A-Za-z][A-Za-z0-9]{0,4}))|(?:[A-Za-z]:\\\\)|(?:\\$[({]|`[^`]*`|&&|\\|\\||\\s\\|\\s)|(?:(^|;\\s*)(sudo|rm|curl|wget|git|ls|chmod|chown|bash|sh|zsh|python3?|pip3?|npm|npx|docker|kubectl|ssh|scp|mv|cp|grep|awk|killall|pkill|mkdir|nc|dd)\\s+\\S)|(?:\\b(sudo|rm|curl|wget|git|ls|chmod|chown|bash|sh|cat|make|find|echo|kill)\\s+(-\\S|/|~))|(?:(^|[^\\w-])eyJ[\\w-]{7,}\\.[\\w-]{2,}\\.[\\w-]*)|(?:(^|[^A-Za-z0-9])(sk-|sk_live_|sk_test_|pk_live_|rk_live_|xoxb-|xoxp-|xapp-)[\\w-]{10,}|(ghp_|gho_|ghs_|github_pat_|glpat-)[\\w-]{20,}|AKIA[A-Z0-9]{16}|AIza[\\w-]{30,})|(?:[0-9A-Fa-f]{32,})|(?:[A-Za-z0-9+/_-]{40,})|(?:(^|[^\\w.])(25[0-5]|2[0-4]\\d|1?\\d?\\d)(\\.(25[0-5]|2[0-4]\\d|1?\\d?\\d)){3}($|[^\\w]|\\.[^\\d]))|(?:[0-9A-Fa-f]*::[0-9A-Fa-f:]*[0-9A-Fa-f])|(?:(^|[^\\w.])(\\+\\d|\\(\\d|\\d)[\\d ()-]{7,}\\d($|[^\\w]))";
def leaky: test(leakpattern) or ([splits("\\s+") | select(test("[A-Za-z]"))] | length >= 8);
def is_int: type == "number" and . == floor;

.seq as $seq
| (.time | sub("\\.\\d+Z$"; "Z") | fromdateiso8601) as $sent
| header("apns-push-type") as $type
| (header("apns-priority") | if . then tonumber? else null end) as $priority
| header("apns-topic") as $topic
| (header("apns-expiration") | if . then tonumber? else null end) as $expiration
| header("apns-collapse-id") as $collapse
| header("apns-id") as $apnsid
| .payload.size as $size
| .payload.parsed as $p
| ($p.aps) as $aps
| ($p.type) as $kind
| [
  # apple
  (if $type == null or (suffixes | has($type) | not) then "apple.push-type" else empty end),
  (if $priority != null and ([1,5,10] | index($priority) | not) then "apple.priority" else empty end),
  (if $type == "background" and ($priority // 10) != 5 then "apple.background-priority" else empty end),
  (if $type != null and (suffixes | has($type)) and $type != "mdm" then
     (suffixes[$type]) as $suffix
     | if $topic == null or $topic == "" then "apple.topic-suffix"
       elif $suffix == "" then (if [suffixes[] | select(. != "") as $s | $topic | endswith($s)] | any then "apple.topic-suffix" else empty end)
       elif ($topic | endswith($suffix) | not) or ($topic | length) <= ($suffix | length) then "apple.topic-suffix"
       else empty end
   else empty end),
  (if $collapse != null and ($collapse | utf8bytelength) > 64 then "apple.collapse-id" else empty end),
  (if $expiration != null and ($expiration < 0 or ($expiration != 0 and $expiration < $sent)) then "apple.expiration" else empty end),
  (if $size > (if $type == "voip" then 5120 else 4096 end) or $size == 0 then "apple.payload-size" else empty end),
  (if ($p | type) != "object" then "apple.aps-shape"
   elif $aps == null then (if ["alert","background","liveactivity"] | index($type // "alert") then "apple.aps-shape" else empty end)
   elif ($aps | type) != "object" then "apple.aps-shape"
   elif ($type // "alert") == "alert" and $aps.alert == null and $aps.sound == null and $aps.badge == null then "apple.aps-shape"
   elif $type == "background" and ($aps.alert != null or $aps.badge != null or $aps.sound != null or $aps["content-available"] != 1) then "apple.aps-shape"
   else empty end),
  (if ($aps | type) == "object" then
     ([$aps | to_entries[] | .key as $k | .value as $v |
       if $k == "badge" then ($v | is_int and . >= 0)
       elif ["content-available","mutable-content","input-push-token"] | index($k) then $v == 1
       elif $k == "alert" then (($v | type) == "string" or (($v | type) == "object"))
       elif $k == "sound" then (($v | type) == "string" or ($v | type) == "object")
       elif $k == "interruption-level" then (["passive","active","time-sensitive","critical"] | index($v)) != null
       elif $k == "relevance-score" then (($v | type) == "number" and ($type == "liveactivity" or ($v >= 0 and $v <= 1)))
       elif ["thread-id","category","target-content-id","filter-criteria","attributes-type","input-push-channel"] | index($k) then ($v | type) == "string"
       else true end] | all | if . then empty else "apple.aps-types" end)
   else empty end),
  (if ($aps | type) == "object" and (([$aps | keys[] | select(. as $k | apskeys | index($k) | not)] | length > 0)
       or (($aps.alert | type) == "object" and ([$aps.alert | keys[] | select(. as $k | alertkeys | index($k) | not)] | length > 0)))
   then "apple.aps-unknown-key" else empty end),
  # hermes
  (if $type != "alert" or $priority != 10 or $expiration == null or $expiration <= $sent
      or $collapse == null or $collapse == "" or $apnsid == null
      or ($apnsid | test("^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$") | not)
      or ((interval | has($kind // "")) and $expiration > $sent + interval[$kind] + 60)
   then "hermes.headers" else empty end),
  (if ($p | type) == "object" and (
        ([$p | keys[] | select(. != "aps" and . != "session_id" and . != "type")] | length > 0)
        or (($aps | type) == "object" and ([$aps | keys[] | select(["alert","sound","thread-id","category","badge"] | index(.) | not)] | length > 0))
        or (($aps.alert | type) == "object" and ([$aps.alert | keys[] | select(. != "title" and . != "body")] | length > 0)))
   then "hermes.allowed-keys" else empty end),
  (if [$aps.alert.title, $aps.alert.body, $aps.sound, $aps["thread-id"], $aps.category, $p.session_id, $kind] | any(. == null)
   then "hermes.required-keys" else empty end),
  (if (copy | has($kind // "") | not)
      or ($aps.sound != null and $aps.sound != "default")
      or ($aps.alert.title != null and $aps.alert.title != copy[$kind][0])
      or ($aps.alert.body != null and $aps.alert.body != copy[$kind][1])
      or ($aps.category != null and $aps.category != copy[$kind][2])
   then "hermes.allowed-values" else empty end),
  (if ($aps.badge != null and (($aps.badge | is_int | not) or $aps.badge < 0))
      or ($kind == "approval" and $aps.badge == null)
      or ((["clarify","complete","error"] | index($kind)) and $aps.badge != null)
   then "hermes.badge" else empty end),
  (if ($p.session_id | type) != "string" or ($p.session_id | test("^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$") | not)
   then "hermes.identifiers" else empty end),
  (if ($p.session_id != null or $aps["thread-id"] != null) and $p.session_id != $aps["thread-id"] then "hermes.equal-fields" else empty end),
  (if [$p | .. | strings | select(leaky)] | length > 0 then "hermes.leaks" else empty end),
  (if $topic == null or $topic == "" or ([suffixes[] | select(. != "") as $s | $topic | endswith($s)] | any)
   then "hermes.topic" else empty end),
  (if (copy | has($kind // "")) and ($p.session_id | type) == "string" and $collapse != null
      and $collapse != (($kind + ":" + $p.session_id) as $c | if ($c | utf8bytelength) <= 64 then $c else $collapse end)
   then "hermes.collapse-id" else empty end)
  ]
| select(length > 0)
| {seq: $seq, rules: .}
