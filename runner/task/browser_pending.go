package task

// The browser's getters that cannot run here are known so that tasks
// using them load; a task using one is skipped with its reason.
func init() {
	addUnavailable(nil, map[string]string{
		"chrome_saved_address":                    "reads chrome://settings/addresses, a page the runner's browser access does not open (agentd opens http, https, file and about pages only)",
		"gotoRecreationPage_and_get_html_content": "searches the live www.recreation.gov site (its hard-coded search and page layout), which needs the internet",
		"number_of_search_results":                "counts results of a hard-coded live Google search, which needs the internet",
		"googledrive_file":                        "needs Google Drive credentials (OSWorld's settings/googledrive), which a sandbox run cannot hold",
	})
}
