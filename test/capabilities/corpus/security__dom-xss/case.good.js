export function showMessage(message) {
  document.getElementById('flash').textContent = message;
}
