// Discord's client side of the Embedded App SDK's postMessage protocol, for the tests:
// the page at https://discord.com (Chromium maps the name to this machine) that opens
// the Activity in an iframe at https://<client id>.discordsays.com, as Discord does, and
// answers the SDK inside it, so the real SDK runs unmodified.
//
// The protocol, as the SDK (2.5.0, output/Discord.mjs) speaks it: every message is an
// array [opcode, payload]; opcodes HANDSHAKE 0, FRAME 1, CLOSE 2, HELLO 3. The SDK reads
// frame_id, instance_id, platform (and channel_id, guild_id...) from its URL, posts
// [HANDSHAKE, {v: 1, encoding: "json", client_id, frame_id, sdk_version}] to its parent
// (window.parent, at the origin of document.referrer), and accepts messages only from the
// origins it knows (https://discord.com among them). The client answers the handshake
// with a FRAME dispatching READY; each command is a FRAME {cmd, args, nonce} and its
// answer a FRAME {cmd, evt: null, nonce, data}, or {cmd, evt: "ERROR", nonce, data:
// {code, message}}. AUTHORIZE asks for an OAuth2 code (this harness asks its server,
// which asks the fake Discord for one for the test's user); AUTHENTICATE hands the access
// token back to be checked (the server asks the fake Discord's /users/@me with it).
"use strict";

(function () {
  var HANDSHAKE = 0, FRAME = 1, CLOSE = 2;
  var params = new URLSearchParams(location.search);
  var clientId = params.get("client_id");
  var frameId = params.get("frame_id") || "frame-" + Math.random().toString(36).slice(2);
  var activityOrigin = "https://" + clientId + ".discordsays.com";
  var record = {
    handshake: null, ready: false, commands: [], logs: [], errors: [], closed: null,
    user: null, authorized: null, authenticated: null
  };
  window.harness = record;

  var query = new URLSearchParams({
    frame_id: frameId,
    instance_id: params.get("instance_id") || "i-" + frameId,
    platform: params.get("platform") || "desktop",
    guild_id: params.get("guild_id") || "",
    channel_id: params.get("channel_id") || "",
    location_id: "c:" + (params.get("channel_id") || "")
  });
  var frame = document.getElementById("activity");
  frame.src = activityOrigin + "/" + (params.get("path") || "") + "?" + query.toString();
  var target = function () { return frame.contentWindow; };

  function post(message) {
    target().postMessage(message, activityOrigin);
  }

  function reply(command, data) {
    post([FRAME, { cmd: command.cmd, evt: null, nonce: command.nonce, data: data }]);
  }

  function refuse(command, code, message) {
    record.errors.push({ cmd: command.cmd, code: code, message: message });
    post([FRAME, { cmd: command.cmd, evt: "ERROR", nonce: command.nonce,
                   data: { code: code, message: message } }]);
  }

  function ask(path, body) {
    return fetch(path, {
      method: "POST", headers: { "Content-Type": "application/json", "X-Frame-Id": frameId },
      body: JSON.stringify(body)
    }).then(function (response) {
      return response.json().then(function (answer) {
        if (!response.ok) throw new Error(answer.error || ("HTTP " + response.status));
        return answer;
      });
    });
  }

  function handshake(payload) {
    record.handshake = payload;
    if (payload.v !== 1 || payload.client_id !== clientId || payload.frame_id !== frameId) {
      post([CLOSE, { code: 4000, message: "Invalid client id or frame" }]);
      return;
    }
    ask("harness/user", {}).then(function (user) {
      record.user = user;
      post([FRAME, {
        cmd: "DISPATCH", evt: "READY", nonce: null,
        data: {
          v: 1,
          config: { cdn_host: "cdn.discordapp.com", api_endpoint: "//discord.com/api",
                    environment: "production" },
          user: { id: user.id, username: user.username, discriminator: "0" }
        }
      }]);
      record.ready = true;
    });
  }

  function command(payload) {
    record.commands.push({ cmd: payload.cmd, args: payload.args });
    var args = payload.args || {};
    switch (payload.cmd) {
      case "AUTHORIZE":
        if (args.client_id !== clientId) return refuse(payload, 4007, "Invalid client id");
        if (args.response_type !== "code") return refuse(payload, 4000, "Invalid response type");
        ask("harness/authorize", { client_id: args.client_id, scope: args.scope || [] })
          .then(function (answer) { record.authorized = answer.code; reply(payload, { code: answer.code }); })
          .catch(function (error) { refuse(payload, 5000, String(error.message)); });
        return;
      case "AUTHENTICATE":
        ask("harness/authenticate", { access_token: args.access_token || "" })
          .then(function (answer) { record.authenticated = answer.user.id; reply(payload, answer); })
          .catch(function (error) { refuse(payload, 4009, String(error.message)); });
        return;
      case "CAPTURE_LOG":
        record.logs.push(args);
        reply(payload, null);
        return;
      default:
        refuse(payload, 4002, "Unsupported command " + payload.cmd);
    }
  }

  window.addEventListener("message", function (event) {
    // like Discord's client: only the Activity's own frame, from its own origin
    if (event.source !== target() || event.origin !== activityOrigin) return;
    var message = event.data;
    if (!Array.isArray(message)) return;
    if (message[0] === HANDSHAKE) handshake(message[1]);
    else if (message[0] === FRAME) command(message[1]);
    else if (message[0] === CLOSE) record.closed = message[1];
  });
})();
