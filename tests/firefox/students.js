// Two students on phones in Firefox, in a class session a lecturer runs elsewhere (tests/test_firefox.py: the
// lecturer in Chromium). Each opens the join link, answers vote 1 (the first student the first choice, the
// second the last), then waits for the reveal and reads their own answer in it.
// Prints one line per step ("answered STUDENT CHOICE", "revealed STUDENT TEXT" with the JSON of what the student
// reads), and exits 0 only if both saw the reveal with no console error.
//     xvfb-run -a node tests/firefox/students.js JOIN_URL
const { launch, open, waitFor } = require("./firefox.js");

const PHONE = [390, 844];

async function answer(browser, join, which) {
  const page = await open(browser, ...PHONE);
  await page.goto(join);
  await page.waitForSelector("#class-choices label", { visible: true, timeout: 30000 });
  const labels = await page.$$("#class-choices label");
  const label = labels[which === "first" ? 0 : labels.length - 1];
  const choice = (await label.evaluate((e) => e.innerText)).trim();
  await label.click();
  await waitFor(page, (c) => document.getElementById("class-student-result").innerText.includes(c), choice);
  return { page, choice };
}

async function main(join) {
  const browser = await launch();
  try {
    const students = [];
    for (const which of ["first", "last"]) {
      const s = await answer(browser, join, which);
      students.push(s);
      console.log(`answered ${students.length} ${s.choice}`);
    }
    for (const [i, s] of students.entries()) {
      await waitFor(s.page, (c) => {
        const text = document.getElementById("class-student-result").innerText;
        return text.includes(`You answered ${c}.`) && text.includes("The answer:");
      }, s.choice, 60000);
      if (s.page.errors.length) throw new Error(`student ${i + 1}: ${s.page.errors.join(" | ")}`);
      console.log(`revealed ${i + 1} ${JSON.stringify(await s.page.evaluate(() => document.getElementById("class-student-result").innerText))}`);
    }
  } finally {
    await browser.close();
  }
}

main(process.argv[2]).catch((e) => { console.error(e); process.exit(1); });
