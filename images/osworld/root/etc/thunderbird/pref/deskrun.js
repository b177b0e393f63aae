// deskrun/osworld: Thunderbird starts without the questions of a first
// run on a desktop (default mail client, data collection notice, start
// page, updates).
pref("mail.shell.checkDefaultClient", false);
pref("mailnews.start_page.enabled", false);
pref("datareporting.policy.dataSubmissionEnabled", false);
pref("datareporting.healthreport.uploadEnabled", false);
pref("toolkit.telemetry.reportingpolicy.firstRun", false);
pref("app.update.enabled", false);
