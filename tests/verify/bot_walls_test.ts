// The wall list on the signals real walls show, and on the ordinary pages a portal shows. The precision of the
// list on every page of the sandbox, in a real browser, is checked in tests/jobs/verify_precision_test.ts.
import assert from "node:assert/strict";
import { botWallIn, type PageSignals } from "../../lib/verify/bot_walls.ts";

const page = (signals: Partial<PageSignals>): PageSignals => ({
  title: "",
  text: "",
  resources: [],
  headers: {},
  ...signals,
});

Deno.test("bot walls: each wall is named from any one of its markers", async (t) => {
  const walls: [string, Partial<PageSignals>, string][] = [
    ["Cloudflare's title", { title: "Just a moment..." }, "Cloudflare challenge"],
    ["Cloudflare's title, one ellipsis character", { title: " Just a moment… " }, "Cloudflare challenge"],
    [
      "Cloudflare's text",
      { text: "example.com Verify you are human by completing the action below." },
      "Cloudflare challenge",
    ],
    ["Cloudflare's script", {
      resources: ["https://portal.example/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1?ray=1"],
    }, "Cloudflare challenge"],
    ["Cloudflare's header", { headers: { "cf-mitigated": "challenge" } }, "Cloudflare challenge"],
    ["Cloudflare's block", {
      text:
        "Sorry, you have been blocked You are unable to access example.com Cloudflare Ray ID: 8a1b2c3d4e5f",
    }, "Cloudflare block"],
    [
      "Incapsula's text",
      { text: "Request unsuccessful. Incapsula incident ID: 1234-5678" },
      "Imperva Incapsula",
    ],
    [
      "Incapsula's frame",
      { resources: ["https://p.example/_Incapsula_Resource?SWUDNSAI=31&xinfo=1"] },
      "Imperva Incapsula",
    ],
    ["Akamai's text", {
      title: "Access Denied",
      text:
        'Access Denied You don\'t have permission to access "http://p.example/" on this server. Reference #18.6a2d1002.1700000000.1f2e3d4',
    }, "Akamai access denied"],
    [
      "PerimeterX's text",
      { text: "Press & Hold to confirm you are a human (and not a bot)." },
      "PerimeterX captcha",
    ],
    [
      "DataDome's frame",
      { resources: ["https://geo.captcha-delivery.com/captcha/?initialCid=x"] },
      "DataDome captcha",
    ],
    ["Sucuri's title", { title: "Sucuri WebSite Firewall - Access Denied" }, "Sucuri firewall"],
    [
      "AWS WAF's script",
      { resources: ["https://abc.token.awswaf.com/abc/def/challenge.js"] },
      "AWS WAF captcha",
    ],
  ];
  for (const [what, signals, wall] of walls) {
    await t.step(what, () => assert.equal(botWallIn(page(signals)), wall));
  }
});

Deno.test("bot walls: ordinary pages that mention or load what walls use are not walls", async (t) => {
  const ordinary: [string, Partial<PageSignals>][] = [
    ["a tracking page", { title: "Track your shipment", text: "FCR CPH-1001 Departed Copenhagen" }],
    ["a contact form with reCAPTCHA", {
      title: "Contact us",
      resources: [
        "https://www.google.com/recaptcha/api.js",
        "https://www.google.com/recaptcha/api2/anchor?k=x",
      ],
    }],
    ["a page served through Cloudflare", {
      title: "Container location",
      headers: { "server": "cloudflare", "cf-ray": "8a1b2c3d4e5f-FRA" },
      resources: ["https://p.example/cdn-cgi/scripts/5c5dd728/cloudflare-static/email-decode.min.js"],
    }],
    ["a page whose title starts like Cloudflare's", { title: "Just a moment of your time: our survey" }],
    ["an article about bot checks", {
      title: "How Cloudflare decides who is human",
      text: "A challenge page asks you to wait. Bot management uses a Ray ID for each request.",
    }],
    ["a hCaptcha on a login form", { resources: ["https://js.hcaptcha.com/1/api.js"] }],
    ["an access-denied word on a portal page", {
      title: "Access Denied",
      text: "Please log in to see this report.",
    }],
    ["a DataDome-protected page that passed", { headers: { "x-datadome": "protected" } }],
  ];
  for (const [what, signals] of ordinary) {
    await t.step(what, () => assert.equal(botWallIn(page(signals)), undefined));
  }
});
