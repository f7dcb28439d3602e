-- Wireshark/tshark dissector for nanopu's transports (docs/wire.md):
--   NDP  (IPv4 protocol 0x99): nanopu_ndp.*
--   Homa (IPv4 protocol 0x9A): nanopu_homa.*
-- and the message payload shown as 64-bit big-endian words (nanopu.word).
--
-- Use:  tshark -X lua_script:tools/wireshark/nanopu.lua -r capture.pcapng
--       wireshark -X lua_script:tools/wireshark/nanopu.lua capture.pcapng
-- or copy this file to ~/.local/lib/wireshark/plugins/.
-- Filter names start with nanopu_ because Wireshark's own "ndp" is the
-- Nortel Discovery Protocol.

local HEADER_BYTES = 30

-- One flags field per transport, with a bit field per flag.
local function flag_fields(prefix, names)
  local fields = { flags = ProtoField.uint8(prefix .. ".flags", "Flags", base.HEX) }
  for _, f in ipairs(names) do
    fields[f[1]] = ProtoField.bool(prefix .. ".flags." .. f[1], f[2], 8, nil, f[3])
  end
  return fields
end

local function describe_flags(value, names)
  local set = {}
  for _, f in ipairs(names) do
    if bit.band(value, f[3]) ~= 0 then set[#set + 1] = f[2] end
  end
  if #set == 0 then return "none" end
  return table.concat(set, "|")
end

-- The payload, as the application sees it: 64-bit words, the last one
-- zero-padded (docs/wire.md, "Application header").
local word_field = ProtoField.uint64("nanopu.word", "Word", base.HEX)
local payload_field = ProtoField.bytes("nanopu.payload", "Payload")
local padding_field = ProtoField.bytes("nanopu.padding", "Control padding")

local function add_payload(buf, root, offset, is_data)
  local left = buf:len() - offset
  if left <= 0 then return end
  if not is_data then
    root:add(padding_field, buf(offset, left))
    return
  end
  local sub = root:add(payload_field, buf(offset, left))
  sub:set_text(string.format("Payload: %d bytes, %d words", left, math.ceil(left / 8)))
  local i = 0
  while offset + 8 <= buf:len() do
    sub:add(word_field, buf(offset, 8)):set_text(
      string.format("word[%d]: 0x%s", i, buf(offset, 8):uint64():tohex()))
    offset = offset + 8
    i = i + 1
  end
  if offset < buf:len() then
    local tail = buf(offset, buf:len() - offset)
    sub:add(tail, string.format("word[%d]: %s (short last word, zero-padded by the receiver)",
                                i, tail:bytes():tohex()))
  end
end

---------------------------------------------------------------------------
-- NDP, protocol 0x99
local ndp = Proto("nanopu_ndp", "nanopu NDP transport")
local ndp_flag_names = {
  { "data", "DATA", 0x01 }, { "ack", "ACK", 0x02 }, { "nack", "NACK", 0x04 },
  { "pull", "PULL", 0x08 }, { "chop", "CHOP", 0x10 }, { "gone", "GONE", 0x20 },
}
local nf = flag_fields("nanopu_ndp", ndp_flag_names)
nf.src_context = ProtoField.uint16("nanopu_ndp.src_context", "Source context")
nf.dst_context = ProtoField.uint16("nanopu_ndp.dst_context", "Destination context")
nf.msg_len = ProtoField.uint16("nanopu_ndp.msg_len", "Message length")
nf.pkt_offset = ProtoField.uint8("nanopu_ndp.pkt_offset", "Packet offset")
nf.pull_offset = ProtoField.uint16("nanopu_ndp.pull_offset", "Pull offset")
nf.tx_msg_id = ProtoField.uint16("nanopu_ndp.tx_msg_id", "TX message id")
nf.buf_ptr = ProtoField.uint16("nanopu_ndp.buf_ptr", "Buffer pointer")
nf.buf_size_class = ProtoField.uint8("nanopu_ndp.buf_size_class", "Buffer size class")
nf.incarnation = ProtoField.uint16("nanopu_ndp.incarnation", "Sender incarnation")
nf.dst_incarnation = ProtoField.uint16("nanopu_ndp.dst_incarnation", "Receiver incarnation")
nf.padding = ProtoField.bytes("nanopu_ndp.header_padding", "Header padding")
local ndp_list = { word_field, payload_field, padding_field }
for _, v in pairs(nf) do ndp_list[#ndp_list + 1] = v end
ndp.fields = ndp_list

local ndp_short = ProtoExpert.new("nanopu_ndp.short", "Truncated NDP header",
                                  expert.group.MALFORMED, expert.severity.ERROR)
ndp.experts = { ndp_short }

function ndp.dissector(buf, pinfo, tree)
  pinfo.cols.protocol = "nanopu NDP"
  local t = tree:add(ndp, buf(0, math.min(buf:len(), HEADER_BYTES)))
  if buf:len() < HEADER_BYTES then
    t:add_proto_expert_info(ndp_short)
    return
  end
  local flags = buf(0, 1):uint()
  local ft = t:add(nf.flags, buf(0, 1))
  ft:append_text(" (" .. describe_flags(flags, ndp_flag_names) .. ")")
  for _, f in ipairs(ndp_flag_names) do ft:add(nf[f[1]], buf(0, 1)) end
  t:add(nf.src_context, buf(1, 2))
  t:add(nf.dst_context, buf(3, 2))
  t:add(nf.msg_len, buf(5, 2))
  t:add(nf.pkt_offset, buf(7, 1))
  t:add(nf.pull_offset, buf(8, 2))
  t:add(nf.tx_msg_id, buf(10, 2))
  t:add(nf.buf_ptr, buf(12, 2))
  t:add(nf.buf_size_class, buf(14, 1))
  t:add(nf.incarnation, buf(15, 2))
  t:add(nf.dst_incarnation, buf(17, 2))
  t:add(nf.padding, buf(19, HEADER_BYTES - 19))
  local is_data = bit.band(flags, 0x01) ~= 0
  pinfo.cols.info = string.format("%s ctx %d -> %d id %d len %d pkt %d%s",
    describe_flags(flags, ndp_flag_names), buf(1, 2):uint(), buf(3, 2):uint(),
    buf(10, 2):uint(), buf(5, 2):uint(), buf(7, 1):uint(),
    is_data and "" or string.format(" pull %d", buf(8, 2):uint()))
  add_payload(buf, tree, HEADER_BYTES, is_data)
end

---------------------------------------------------------------------------
-- Homa, protocol 0x9A (the nanoPU's header; data priority in IPv4 TOS)
local homa = Proto("nanopu_homa", "nanopu Homa transport")
local homa_flag_names = {
  { "data", "DATA", 0x01 }, { "ack", "ACK", 0x02 }, { "nack", "NACK", 0x04 },
  { "grant", "GRANT", 0x08 }, { "chop", "CHOP", 0x10 }, { "resend", "RESEND", 0x20 },
  { "busy", "BUSY", 0x40 },
}
local hf = flag_fields("nanopu_homa", homa_flag_names)
hf.src_context = ProtoField.uint16("nanopu_homa.src_context", "Source context")
hf.dst_context = ProtoField.uint16("nanopu_homa.dst_context", "Destination context")
hf.msg_len = ProtoField.uint16("nanopu_homa.msg_len", "Message length")
hf.pkt_offset = ProtoField.uint8("nanopu_homa.pkt_offset", "Packet offset")
hf.grant_offset = ProtoField.uint16("nanopu_homa.grant_offset", "Grant offset")
hf.grant_prio = ProtoField.uint8("nanopu_homa.grant_prio", "Grant priority")
hf.tx_msg_id = ProtoField.uint16("nanopu_homa.tx_msg_id", "TX message id")
hf.buf_ptr = ProtoField.uint16("nanopu_homa.buf_ptr", "Buffer pointer")
hf.buf_size_class = ProtoField.uint8("nanopu_homa.buf_size_class", "Buffer size class")
hf.padding = ProtoField.bytes("nanopu_homa.header_padding", "Header padding")
local homa_list = {}
for _, v in pairs(hf) do homa_list[#homa_list + 1] = v end
homa.fields = homa_list

local homa_short = ProtoExpert.new("nanopu_homa.short", "Truncated Homa header",
                                   expert.group.MALFORMED, expert.severity.ERROR)
homa.experts = { homa_short }

function homa.dissector(buf, pinfo, tree)
  pinfo.cols.protocol = "nanopu Homa"
  local t = tree:add(homa, buf(0, math.min(buf:len(), HEADER_BYTES)))
  if buf:len() < HEADER_BYTES then
    t:add_proto_expert_info(homa_short)
    return
  end
  local flags = buf(0, 1):uint()
  local ft = t:add(hf.flags, buf(0, 1))
  ft:append_text(" (" .. describe_flags(flags, homa_flag_names) .. ")")
  for _, f in ipairs(homa_flag_names) do ft:add(hf[f[1]], buf(0, 1)) end
  t:add(hf.src_context, buf(1, 2))
  t:add(hf.dst_context, buf(3, 2))
  t:add(hf.msg_len, buf(5, 2))
  t:add(hf.pkt_offset, buf(7, 1))
  t:add(hf.grant_offset, buf(8, 2))
  t:add(hf.grant_prio, buf(10, 1))
  t:add(hf.tx_msg_id, buf(11, 2))
  t:add(hf.buf_ptr, buf(13, 2))
  t:add(hf.buf_size_class, buf(15, 1))
  t:add(hf.padding, buf(16, HEADER_BYTES - 16))
  local is_data = bit.band(flags, 0x01) ~= 0
  pinfo.cols.info = string.format("%s ctx %d -> %d id %d len %d pkt %d",
    describe_flags(flags, homa_flag_names), buf(1, 2):uint(), buf(3, 2):uint(),
    buf(11, 2):uint(), buf(5, 2):uint(), buf(7, 1):uint())
  add_payload(buf, tree, HEADER_BYTES, is_data)
end

local ip_proto = DissectorTable.get("ip.proto")
ip_proto:add(0x99, ndp)
ip_proto:add(0x9A, homa)
