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
-- A transport: its flags, then its header fields as {key, label, offset,
-- bytes} (docs/wire.md), then how its Info column reads.
local function transport(abbrev, title, column, flag_names, layout, info, extra_fields, control_payload)
  local p = Proto(abbrev, title)
  local f = flag_fields(abbrev, flag_names)
  for _, l in ipairs(layout) do
    local kind = ({ [1] = ProtoField.uint8, [2] = ProtoField.uint16, [4] = ProtoField.uint32 })[l[4]]
      or ProtoField.bytes
    f[l[1]] = kind(abbrev .. "." .. l[1], l[2])
  end
  local list = {}
  for _, v in pairs(f) do list[#list + 1] = v end
  for _, v in ipairs(extra_fields or {}) do list[#list + 1] = v end
  p.fields = list
  local short = ProtoExpert.new(abbrev .. ".short", "Truncated " .. title .. " header",
                                expert.group.MALFORMED, expert.severity.ERROR)
  p.experts = { short }
  function p.dissector(buf, pinfo, tree)
    pinfo.cols.protocol = column
    local t = tree:add(p, buf(0, math.min(buf:len(), HEADER_BYTES)))
    if buf:len() < HEADER_BYTES then
      t:add_proto_expert_info(short)
      return
    end
    local flags = buf(0, 1):uint()
    local ft = t:add(f.flags, buf(0, 1))
    ft:append_text(" (" .. describe_flags(flags, flag_names) .. ")")
    for _, n in ipairs(flag_names) do ft:add(f[n[1]], buf(0, 1)) end
    local v = {}
    for _, l in ipairs(layout) do
      t:add(f[l[1]], buf(l[3], l[4]))
      if l[4] <= 4 then v[l[1]] = buf(l[3], l[4]):uint() end
    end
    local is_data = bit.band(flags, 0x01) ~= 0
    pinfo.cols.info = string.format("%s ctx %d -> %d id %d len %d pkt %d%s",
      describe_flags(flags, flag_names), v.src_context, v.dst_context, v.tx_msg_id, v.msg_len,
      v.pkt_offset, is_data and "" or info(v))
    if is_data or not control_payload or not control_payload(buf, tree, v, flags) then
      add_payload(buf, tree, HEADER_BYTES, is_data)
    end
  end
  return p
end

-- An NDP ACK's list (options 0x10): the further messages it acknowledges
-- whole, in its payload (docs/wire.md, "Lists"). True when shown.
local list_count_field = ProtoField.uint8("nanopu_ndp.list.count", "Listed ACKs")
local listed_id_field = ProtoField.uint16("nanopu_ndp.list.msg_id", "Listed ACK: message id")
local listed_buf_field = ProtoField.uint16("nanopu_ndp.list.buf_ptr", "Listed ACK: buffer pointer")
local function ack_list(buf, root, v, flags)
  if bit.band(flags, 0x02) == 0 or bit.band(v.options, 0x10) == 0 then return false end
  local left = buf:len() - HEADER_BYTES
  if left < 2 then return false end
  local count = buf(HEADER_BYTES, 1):uint()
  if count == 0 or count > 15 or buf(HEADER_BYTES + 1, 1):uint() ~= 0 or left < 2 + 4 * count then
    return false  -- what the NIC would ignore (nic.rx_bad_ack_lists) shows as padding
  end
  local sub = root:add(list_count_field, buf(HEADER_BYTES, 1))
  for i = 0, count - 1 do
    local at = HEADER_BYTES + 2 + 4 * i
    sub:add(listed_id_field, buf(at, 2))
    sub:add(listed_buf_field, buf(at + 2, 2))
  end
  return true
end

-- NDP, protocol 0x99
local ndp = transport("nanopu_ndp", "nanopu NDP transport", "nanopu NDP", {
  { "data", "DATA", 0x01 }, { "ack", "ACK", 0x02 }, { "nack", "NACK", 0x04 },
  { "pull", "PULL", 0x08 }, { "chop", "CHOP", 0x10 }, { "gone", "GONE", 0x20 },
  { "reject", "REJECT", 0x40 },
}, {
  { "src_context", "Source context", 1, 2 }, { "dst_context", "Destination context", 3, 2 },
  { "msg_len", "Message length", 5, 2 }, { "pkt_offset", "Packet offset", 7, 1 },
  { "pull_offset", "Pull offset", 8, 2 }, { "tx_msg_id", "TX message id", 10, 2 },
  { "buf_ptr", "Buffer pointer", 12, 2 }, { "buf_size_class", "Buffer size class", 14, 1 },
  { "incarnation", "Sender incarnation", 15, 2 }, { "dst_incarnation", "Receiver incarnation", 17, 2 },
  { "core_time", "Sender core time (1/16 ns)", 19, 4 },
  { "options", "Options (0x01 takes ACKs on DATA, 0x02 carries an ACK, 0x04 ACK bitmap, 0x08 takes whole-message ACKs, 0x10 takes ACK lists (DATA) / lists more ACKs (ACK))", 23, 1 },
  { "acked_msg_id", "Carried ACK: message id", 24, 2 }, { "acked_buf_ptr", "Carried ACK: buffer pointer", 26, 2 },
  { "tx_stamp", "Send stamp (DATA: the sender's; control: echoed)", 28, 2 },
}, function(v) return string.format(" pull %d", v.pull_offset) end,
-- The payload fields are registered once, with NDP's.
{ word_field, payload_field, padding_field, list_count_field, listed_id_field, listed_buf_field }, ack_list)

-- Homa, protocol 0x9A (the nanoPU's header; data priority in IPv4 TOS)
local homa = transport("nanopu_homa", "nanopu Homa transport", "nanopu Homa", {
  { "data", "DATA", 0x01 }, { "ack", "ACK", 0x02 }, { "nack", "NACK", 0x04 },
  { "grant", "GRANT", 0x08 }, { "chop", "CHOP", 0x10 }, { "resend", "RESEND", 0x20 },
  { "busy", "BUSY", 0x40 }, { "gone", "GONE", 0x80 },
}, {
  { "src_context", "Source context", 1, 2 }, { "dst_context", "Destination context", 3, 2 },
  { "msg_len", "Message length", 5, 2 }, { "pkt_offset", "Packet offset", 7, 1 },
  { "grant_offset", "Grant offset", 8, 2 }, { "grant_prio", "Grant priority", 10, 1 },
  { "tx_msg_id", "TX message id", 11, 2 }, { "buf_ptr", "Buffer pointer", 13, 2 },
  { "buf_size_class", "Buffer size class", 15, 1 },
  { "incarnation", "Sender incarnation", 16, 2 }, { "dst_incarnation", "Receiver incarnation", 18, 2 },
  { "core_time", "Sender core time (1/16 ns)", 20, 4 },
  { "acked_msg_id", "Carried ACK: message id", 24, 2 }, { "acked_buf_ptr", "Carried ACK: buffer pointer", 26, 2 },
  { "options", "Options (0x01 takes ACKs on DATA, 0x02 carries an ACK)", 28, 1 },
  { "header_padding", "Header padding", 29, HEADER_BYTES - 29 },
}, function(v) return string.format(" grant %d prio %d", v.grant_offset, v.grant_prio) end)

local ip_proto = DissectorTable.get("ip.proto")
ip_proto:add(0x99, ndp)
ip_proto:add(0x9A, homa)
