// Package task reads tasks, sets them up in a sandbox and grades their
// outcome, compatibly with OSWorld's task JSON, setup controller, getters
// and metrics.
//
// # Layout
//
// The port is laid out as OSWorld lays out desktop_env, each package
// below the one that uses it:
//
//   - task (this package): the model, the loader and [Check], the setup
//     steps and getters (OSWorld's controllers/setup.py and
//     evaluators/getters) and the executor ([Setup], [Evaluate]). Steps
//     and getters are rows of two literal tables (table.go), with rows for
//     the names known but unavailable here and why; [Names] lists them.
//   - task/metric: the metrics (evaluators/metrics), functions of the
//     getters' values and the options behind one table; they never see a
//     task or a sandbox, but run_sqlite3, which gets a small interface.
//   - task/vm: OSWorld's guest server (desktop_env/server/main.py) on a
//     sandbox, one implementation that the steps, the getters and the
//     server/osworld routes all call.
//   - task/internal/office and task/internal/atree: the readers of
//     documents (xlsx, docx, pptx, odt, the read_excel frame) and of the
//     accessibility tree, below the metrics and getters.
//   - task/internal/pil, dsp, id3 and lxml: what the metrics take from
//     Pillow and scikit-image (images, SSIM, Lanczos resizing, colour
//     differences, the perceptual hash), librosa (MFCC and the warping
//     distance), mutagen (ID3 text frames) and lxml (HTML pretty
//     printing), below the metrics.
//   - internal/py: what CPython does that Go does not (equality,
//     truthiness, repr, re, shlex, difflib, JSON and YAML into Python's
//     data model), below everything.
//
// # Files
//
// [Load] reads one file or a folder tree of *.json (OSWorld's task JSON
// as it is) and *.yaml / *.yml files (the same model in YAML). Every name
// is checked when the task is loaded: an unknown setup step type, getter
// type or metric fails the load with the task id and the name, e.g.
// `task "abc": evaluator.result[1]: unknown getter type "vm_foo"`.
//
// The YAML form has exactly OSWorld's fields, plus two of deskrun's
// ("domain" and "solution", both also accepted in JSON). Unknown
// top-level fields are refused in YAML and ignored in JSON, where
// OSWorld's own files carry some.
//
//	id: files-copy-report              # required, unique in a tree
//	domain: files                      # default: the folder's name
//	instruction: >-                    # required; placeholders allowed
//	  Copy ~/Desktop/report.txt into ~/Documents.
//	source: deskrun
//	snapshot: base                     # informational
//	related_apps: [os]
//	config:                            # setup steps, run in order
//	  - type: execute                  # or "command"
//	    parameters:
//	      command: mkdir -p ~/Desktop ~/Documents && echo 'quarterly' > ~/Desktop/report.txt
//	      shell: true                  # sh -c; else a list or a shlex-split string
//	      # until: {returncode: 0}     # retry until it holds (or stdout/stderr contains)
//	      # stdout: setup.out          # save stdout in the cache folder
//	  - type: download                 # host file -> sandbox (no http: no internet)
//	    parameters:
//	      files: [{url: data/report.txt, path: /home/user/Desktop/report.txt}]
//	  - type: launch                   # started detached
//	    parameters: {command: [xterm, -T, Work]}
//	  - type: activate_window
//	    parameters: {window_name: Work, strict: true}
//	evaluator:
//	  func: [exact_match, compare_text_file]   # or a single name
//	  conj: and                        # "and" (default) or "or"
//	  result:
//	    - {type: vm_command_line, command: "test -f ~/Documents/report.txt && echo yes", shell: true}
//	    - {type: vm_file, path: /home/user/Documents/report.txt, dest: report.txt}
//	  expected:
//	    - {type: rule, rules: {expected: "yes\n"}}
//	    - {type: cache_file, path: report.expected.txt}   # next to the task file
//	  options: [{}, {ignore_blanks: true}]
//	  postconfig: []                   # steps run before the getters
//	solution:                          # reference solution, replayed in order
//	  - {dialect: anthropic, tool: bash, args: {command: "cp ~/Desktop/report.txt ~/Documents/"}}
//	  - {dialect: osworld, tool: desktop_control, args: {action: done}}
//
// # Placeholders
//
// {SCREEN_WIDTH}, {SCREEN_HEIGHT}, {SCREEN_WIDTH_HALF},
// {SCREEN_HEIGHT_HALF} and {CLIENT_PASSWORD} are replaced in every string
// parameter of setup steps and getters (rules included) when they run,
// with the sandbox's screen size and [Options.ClientPassword]; [Vars]
// expands them elsewhere (an instruction).
//
// # Setup steps
//
// execute and command (command, shell, until, stdout, stderr, timeout),
// launch (started detached; a missing program is an error), open (the
// file's app: gio open or xdg-open when present, else Chromium for
// pages, PDFs and images, a terminal for folders, an editor in a
// terminal for the rest; the step waits for the window naming the file),
// sleep (seconds), download (files of {url, path}; url is a local path
// relative to the task file, a file:// URL, or http(s) through
// [Options.DownloadCache] and [Options.Fetch]; a relative path lands in
// the user's home), upload_file (files of {local_path, path}),
// activate_window and close_window (window_name, strict, by_class; a
// window not found is skipped, as wmctrl does for OSWorld). A
// `python -c "import pyautogui; ..."` command runs in the sandbox like
// any other: its pyautogui module drives the desktop through agentd.
// Commands that call sudo go through [AdminExecer] when the sandbox has
// it.
//
// # OSWorld's names
//
// Every setup step type and getter name of OSWorld's controller and
// getters is known at load. Besides those above: change_wallpaper
// (gsettings), execute_with_verification (a command, then a window or a
// command that must appear within max_wait_time). Steps and getters that
// cannot run here are known too and make the task load with [Task.Skip]
// set: googledrive, googledrive_file, login and proxy (credentials and
// services a sandbox run cannot hold); the browser getters that need the
// live internet or a chrome:// page (gotoRecreationPage_and_get_html_content,
// number_of_search_results, chrome_saved_address; browser_pending.go);
// the getters conference_city_in_order and replay, not implemented here
// yet; OSWorld's own unimplemented steps act, replay and tidy_desktop. [SkipMissing] marks the
// tasks needing VS Code as skipped when the image lacks it ([Apps], read
// from the image's label [LabelVSCode]); a launch of `code` that still
// fails for want of it skips the task at setup. [Check] reports all of it
// per task without a sandbox.
//
// # Getters and metrics
//
// Getters: vm_command_line, vm_command_error, vm_file (multi, gives,
// time_suffix), cloud_file (http(s) through [Options.Fetch] and
// [Options.DownloadCache], local paths and file:// URLs from the runner
// host), list_directory, vm_screen_size, vm_window_size, rule,
// cache_file, vlc_playing_info (VLC's HTTP interface at localhost:8080
// with OSWorld's password, through curl or Python in the sandbox),
// vlc_config, gimp_config_file, default_video_player (xdg-mime),
// vm_wallpaper, shortcuts_on_desktop, vscode_config, accessibility_tree
// and vm_terminal_output (the desktop's accessibility tree in OSWorld's
// XML, read by agentd over AT-SPI), audio_in_slide and
// background_image_in_slide (a slide's media, saved from the pptx),
// content_from_vm_file (a spreadsheet's last row as read_excel gives
// it), rule_relativeTime
// (the rules with OSWorld's placeholders such as {DoW} {DayD} {Month}
// filled for "tomorrow", "next Monday", "10th next month" and the other
// relative times OSWorld computes, from the runner's local date),
// time_diff_range. Files land in the
// task's cache folder on the host ([Options.CacheDir]). Metrics:
// exact_match, check_include_exclude, match_in_list, is_in_list,
// literal_match, fuzzy_match, diff_text_file, compare_text_file,
// check_list, check_csv, check_json, check_direct_json_object,
// file_contains, check_line_number, run_sqlite3 (Python's sqlite3 inside
// the sandbox), compare_csv and infeasible, and the families below, all
// rows of the metric package's table. [Evaluate] documents how they
// combine. An unknown
// metric refuses the task at load, naming it.
//
// Rules' regular expressions are Python's: those RE2 compiles run on Go's
// regexp; a lookaround or backreference (Go's regexp lacks them) runs on
// github.com/dlclark/regexp2, a backtracking engine with Python's syntax
// for them, bounded by a match timeout.
//
// The families of further metrics (files of runner/task/metric):
//
//   - Impress (pptx.go): compare_pptx_files with every examine_*
//     option and its default, check_transition,
//     evaluate_presentation_fill_to_rgb_distance, check_page_number_colors,
//     check_image_stretch_and_center, check_slide_orientation_Portrait, and
//     the LibreOffice registry checks
//     check_auto_saving_time and check_presenter_console_disable. A pptx is
//     read with archive/zip and encoding/xml by a reader of our own
//     (runner/task/internal/office) that gives the values python-pptx gives: None for
//     an absent attribute, placeholders' positions inherited from layout
//     and master. Parts are bounded in size, XML in depth and element
//     count, and every one of these metrics runs under the 60 s deadline
//     of the office metrics (below).
//   - Images (image.go): compare_images, compare_image_list,
//     check_structure_sim and the GIMP checks
//     check_brightness_decrease_and_structure_sim,
//     check_contrast_increase_and_structure_sim,
//     check_palette_and_structure_sim, check_file_exists_and_structure_sim,
//     check_image_mirror, check_image_size, check_image_file_size,
//     check_textbox_on_leftside and check_green_background. PNG, JPEG and
//     GIF are decoded by the standard library; SSIM is our own, with
//     scikit-image's defaults.
//   - Media (media.go): check_mp3_meta on an ID3v2 reader of our own.
//   - Settings (settings.go): check_json_settings,
//     check_json_keybindings, compare_config, is_extension_installed,
//     check_config_status (gimprc), check_thunderbird_prefs,
//     check_thunderbird_filter, check_thunderbird_folder,
//     check_gnome_favorite_apps, is_utc_0, check_text_enlarged,
//     check_moved_jpgs, is_in_vm_clickboard, compare_result_files,
//     compare_python_pure_text.
//   - VLC (vlc.go): is_vlc_playing on VLC's status XML,
//     is_vlc_fullscreen on window and screen sizes, and on vlcrc
//     is_vlc_recordings_folder, check_qt_bgcone, check_qt_max_volume,
//     check_qt_minimal_view, check_qt_slider_colours,
//     check_one_instance_when_started_from_file, check_play_and_exit and
//     check_global_key_play_pause (an option's last line, commented or
//     not, else its default).
//   - Audio and video (audio.go, video.go): compare_audios
//     (MFCC sequences under cosine dynamic time warping, 1/(1+d)) and
//     compare_videos (perceptual hashes of the first 100 frames). ffmpeg
//     (Debian's ffmpeg, installed by scripts/install-deps.sh) decodes in a
//     child process with a 120 s deadline, where OSWorld uses librosa and
//     OpenCV; the features are computed here.
//   - Archives (archive.go, epub.go): compare_archive (zip
//     or tar unpacked under size, count and path bounds, then the metric
//     its file_type names on each pair of files, averaged),
//     compare_zip_files and compare_epub.
//   - GIMP (gimp.go): check_structure_sim_resized,
//     check_structure_sim_with_threshold,
//     check_saturation_increase_and_structure_sim, check_triangle_position
//     and check_sharper.
//   - Chrome (setup_chrome.go, getters_chrome.go, profile_chrome.go,
//     website_chrome.go, bookmarks_chrome.go, appearance_chrome.go;
//     metric/chrome.go,
//     metric/bookmarks.go): the steps
//     chrome_open_tabs, chrome_close_tabs and update_browse_history; the
//     getters on the desktop's browser through agentd (open_tabs_info,
//     active_url_from_accessTree, active_tab_info, page_info,
//     active_tab_html_parse, active_tab_url_parse, url_path_parse, url_dashPart,
//     info_from_website with its backups, pdf_from_url printed by the
//     browser headless) and on its profile (bookmarks, history,
//     cookie_data, default_search_engine, enabled_experiments,
//     profile_name, chrome_language, chrome_font_size,
//     enable_do_not_track, enable_enhanced_safety_browsing, enable_safe_browsing,
//     new_startup_page, data_delete_automacally,
//     find_unpacked_extension_path, find_installed_extension_name,
//     extensions_installed_from_shop), and chrome_appearance_mode_ui on
//     both (the live preferences and selected controls of a tab on
//     chrome://settings, else the profile's Preferences files, OSWorld's
//     own fallback: the runner's browser access does not open
//     chrome:// pages, so where OSWorld opens the settings page in a new
//     tab, deskrun reads a tab the browser already shows there); the metrics is_expected_active_tab,
//     is_expected_active_tab_approximate,
//     is_expected_tabs, is_expected_url_pattern_match,
//     is_expected_bookmarks, is_expected_search_query,
//     is_expected_installed_extensions, is_cookie_deleted,
//     check_history_deleted, check_enabled_experiments, check_font_size,
//     is_added_to_steam_cart and is_shortcut_on_desktop. History and
//     Cookies are SQLite databases: they are copied (Chrome keeps them
//     locked) and read, and update_browse_history writes, with python3's
//     sqlite3 inside the sandbox, as run_sqlite3 does. Every image has
//     python3, SQLite's own code then reads whatever page size and journal
//     Chrome wrote, and the runner gains no SQLite: a pure-Go one
//     (modernc.org/sqlite) is a large module for three getters, and
//     mattn/go-sqlite3 needs cgo, which the static builds avoid.
//   - Others: check_python_file_by_test_suite (python.go; the
//     task's test suite runs in a python3 child process with a 120 s
//     deadline, on the host as in OSWorld), compare_image_text
//     (ocr.go; Tesseract from Debian's tesseract-ocr where OSWorld
//     has easyocr, a child process with a 60 s deadline; the two engines
//     misread different characters), fuzzy_place_math,
//     compare_time_in_speedtest_results and check_html_background_image
//     (misc.go), check_left_panel on the accessibility tree
//     (panel.go), check_accessibility_tree (accessibility.go; OSWorld's
//     CSS selectors and XPath on the accessibility tree) and compare_htmls
//     (html.go).
//
// None of these adds a module dependency: compare_htmls parses with
// golang.org/x/net/html, already in the module's graph (a well-kept
// HTML5 parser; BeautifulSoup's role in OSWorld). Where OSWorld's Python would
// raise (a missing or corrupt file, a value of the wrong type), they score
// 0 with a detail saying why.
//
// # Office documents
//
// Spreadsheets: compare_table with every rule OSWorld's tasks pass
// (sheet_name, sheet_data with precision and ignore_case, sheet_print on
// the <book>-<sheet>.csv export next to the workbook, sheet_fuzzy with
// includes, included_by, fuzzy_match and exact_match and their
// normalisations, chart with chart_props, pivot_table with pivot_props,
// style with props, freeze, zoom, data_validation with dv_props and the
// spreadsheet_range method, row_props, col_props, filter and check_cell)
// and compare_conference_city_in_order. Writer documents:
// compare_docx_files (ignore_blanks, ignore_case, ignore_order,
// content_only; .docx or .odt), compare_docx_tables, compare_line_spacing,
// compare_insert_equation, compare_font_names, compare_subscript_contains,
// has_page_numbers_in_footers, is_first_line_centered, check_tabstops,
// compare_contains_image, evaluate_colored_words_in_tables (CIEDE2000),
// check_highlighted_words (.odt), evaluate_strike_through_last_paragraph,
// check_italic_font_size_14, find_default_font, contains_page_break,
// compare_docx_lines, compare_init_lines, compare_unique_train_records, compare_docx_files_and_ignore_new_lines,
// compare_docx_images, compare_highlighted_text and compare_references.
// PDFs: compare_pdfs, check_pdf_pages and compare_pdf_images.
//
// They read what OSWorld's openpyxl, pandas and python-docx read, with
// the same quirks: a cell's value is the cached result written in the
// file (a formula never computed by a spreadsheet program has none, an
// inline string reads as None in check_cell and sheet_fuzzy), a theme or
// indexed colour's rgb is openpyxl's error text, sheet_data compares the
// frame pandas builds (first non-blank row as header, blank rows
// skipped, whole numbers as integers, float columns rounded half to
// even, a column's kind compared). Not read: the conditional formats of
// the style rule (OSWorld evaluates their formulas) and sparklines.
//
// xlsx, docx, pptx and odt are read by a small reader,
// runner/task/internal/office (one bounded zip container,
// archive/zip and encoding/xml into a tree of elements), rather than
// excelize: the metrics compare the raw attributes openpyxl exposes
// (colour strings, the cached values, the parts of charts and pivot
// caches), which a higher-level library normalises or does not read.
// Every read is bounded (64 MiB per part, 20000 entries, 256 levels of
// XML) and every office and presentation metric runs under one 60 s
// deadline (metric.withDeadline), so a corrupt
// file scores 0 with a detail. PDFs go through programs Debian ships,
// installed by scripts/install-deps.sh, each in a child process with a
// 30 s deadline: the Go PDF text extractors read only part of the font
// encodings LibreOffice writes, and a malformed PDF cannot take the
// runner down with it. compare_pdfs reads text with MuPDF, the engine
// OSWorld's PyMuPDF wraps: MuPDF's mutool (mupdf-tools) runs a short
// script that prints each page as PyMuPDF does (MuPDF's reading
// order, a line at each large gap, ligatures and spaces kept, characters
// cut by the page's edge left out); poppler's pdftotext orders and joins
// text differently and scored 61 of the oracle's 130 compare_pdfs cases
// otherwise than OSWorld. check_pdf_pages and compare_pdf_images count
// pages and extract images with poppler's pdfinfo and pdfimages
// (poppler-utils), which agree with PyMuPDF on every oracle case.
// Legacy formats (.xls, .doc, .ods) are not converted: no OSWorld task
// grades one.
//
// # Solutions
//
// A task's "solution" is a list of {"dialect", "tool", "args"} calls: a
// tool of a deskrun dialect ("osworld", "anthropic", ...) with its
// arguments as the model would send them. The replay agent plays them in
// order; the osworld dialect's desktop_control {"action": "done"} or
// {"action": "fail"} ends the episode. [LoadSolution] reads the same list from a file
// of its own.
package task
